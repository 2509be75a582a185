// Convolution forward / backward data / backward weights. cuDNN takes x [N, C, (D,) H, W] and
// w [K, C/g, ...]: the group count is implied by the channel counts, as in our graphs.
#include <array>

#include "providers/cudnn/lowering.hpp"

namespace dnnbench::cudnn {

namespace {

struct ConvOp {
  cudnnBackendDescriptorType_t type;
  cudnnBackendAttributeName_t alpha, beta, desc;
  // (attribute, role) of the three tensors.
  std::array<std::pair<cudnnBackendAttributeName_t, std::string_view>, 3> tensors;
  std::string_view label;
};

ConvOp conv_op(OpKind kind) {
  switch (kind) {
    case OpKind::conv_bwd_data:
      return {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
              {{{CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, "dy"},
                {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, "w"},
                {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, "dx"}}},
              "conv_bwd_data"};
    case OpKind::conv_bwd_weights:
      return {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
              {{{CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, "x"},
                {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, "dy"},
                {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, "dw"}}},
              "conv_bwd_weights"};
    default:
      return {CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
              {{{CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, "x"},
                {CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, "w"},
                {CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, "y"}}},
              "conv_fwd"};
  }
}

bool is_output_role(std::string_view role) {
  return role == "y" || role == "dx" || role == "dw";
}

}  // namespace

void lower_conv(Lowering& low, const Node& node) {
  const auto& p = node.as<ConvParams>();
  const auto spatial = static_cast<std::int64_t>(p.stride.size());
  const cudnnDataType_t compute = low.compute_type(node);

  Descriptor conv(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  set(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, compute);
  set(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE,
      p.cross_correlation ? CUDNN_CROSS_CORRELATION : CUDNN_CONVOLUTION);
  set(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, spatial);
  set(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, p.dilation);
  set(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, p.stride);
  set(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, p.pre_padding);
  set(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, p.post_padding);
  conv.finalize("convolution descriptor of node '" + node.name + "'");
  const Descriptor& kept = low.keep(std::move(conv));

  const ConvOp kind = conv_op(node.kind);
  Descriptor op(kind.type);
  for (const auto& [attr, role] : kind.tensors) {
    const std::int64_t uid = is_output_role(role) ? output_uid(node, role) : input_uid(node, role);
    // Convolutions keep their own rank (4-D / 5-D): the graph's common rank is never lower.
    set(op, attr, low.tensor(uid));
  }
  set(op, kind.desc, kept);
  // alpha / beta are in the compute precision: double for fp64 convolutions, float otherwise.
  if (compute == CUDNN_DATA_DOUBLE) {
    set(op, kind.alpha, 1.0);
    set(op, kind.beta, 0.0);
  } else {
    set(op, kind.alpha, 1.0f);
    set(op, kind.beta, 0.0f);
  }
  op.finalize(std::string(kind.label) + " operation of node '" + node.name + "'");
  low.add_op(std::move(op), kind.label);
}

}  // namespace dnnbench::cudnn
