// Pointwise ops: one OPERATION_POINTWISE each; binary operands broadcast through 1-sized dims.
#include "providers/cudnn/lowering.hpp"
#include "providers/provider.hpp"

namespace dnnbench::cudnn {

namespace {

cudnnPointwiseMode_t pointwise_mode(PointwiseOp op) {
  switch (op) {
    case PointwiseOp::add:
      return CUDNN_POINTWISE_ADD;
    case PointwiseOp::sub:
      return CUDNN_POINTWISE_SUB;
    case PointwiseOp::mul:
      return CUDNN_POINTWISE_MUL;
    case PointwiseOp::div:
      return CUDNN_POINTWISE_DIV;
    case PointwiseOp::max:
      return CUDNN_POINTWISE_MAX;
    case PointwiseOp::min:
      return CUDNN_POINTWISE_MIN;
    case PointwiseOp::pow:
      return CUDNN_POINTWISE_POW;
    case PointwiseOp::relu:
      return CUDNN_POINTWISE_RELU_FWD;
    case PointwiseOp::gelu:
      return CUDNN_POINTWISE_GELU_FWD;
    case PointwiseOp::gelu_tanh:
      return CUDNN_POINTWISE_GELU_APPROX_TANH_FWD;
    case PointwiseOp::sigmoid:
      return CUDNN_POINTWISE_SIGMOID_FWD;
    case PointwiseOp::tanh:
      return CUDNN_POINTWISE_TANH_FWD;
    case PointwiseOp::swish:
      return CUDNN_POINTWISE_SWISH_FWD;
    case PointwiseOp::elu:
      return CUDNN_POINTWISE_ELU_FWD;
    case PointwiseOp::softplus:
      return CUDNN_POINTWISE_SOFTPLUS_FWD;
    case PointwiseOp::exp:
      return CUDNN_POINTWISE_EXP;
    case PointwiseOp::log:
      return CUDNN_POINTWISE_LOG;
    case PointwiseOp::sqrt:
      return CUDNN_POINTWISE_SQRT;
    case PointwiseOp::rsqrt:
      return CUDNN_POINTWISE_RSQRT;
    case PointwiseOp::abs:
      return CUDNN_POINTWISE_ABS;
    case PointwiseOp::neg:
      return CUDNN_POINTWISE_NEG;
    case PointwiseOp::recip:
      return CUDNN_POINTWISE_RECIPROCAL;
    case PointwiseOp::identity:
      break;
  }
  return CUDNN_POINTWISE_IDENTITY;
}

// Scalar settings are typed by the math precision: double for fp64, float otherwise.
void set_scalar(const Descriptor& d, cudnnBackendAttributeName_t name, cudnnDataType_t math, double value) {
  if (math == CUDNN_DATA_DOUBLE)
    set(d, name, value);
  else
    set(d, name, static_cast<float>(value));
}

}  // namespace

void add_pointwise(Lowering& low, cudnnPointwiseMode_t mode, cudnnDataType_t math, const Descriptor& x,
                   const Descriptor* b, const Descriptor& y, std::string_view label,
                   const PointwiseParams* params) {
  Descriptor pw(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
  set(pw, CUDNN_ATTR_POINTWISE_MODE, mode);
  set(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, math);
  if (params) {
    if (params->relu_lower_clip)
      set_scalar(pw, CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, math, *params->relu_lower_clip);
    if (params->relu_upper_clip)
      set_scalar(pw, CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, math, *params->relu_upper_clip);
    if (params->relu_lower_clip_slope)
      set_scalar(pw, CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE, math, *params->relu_lower_clip_slope);
    if (params->elu_alpha) set_scalar(pw, CUDNN_ATTR_POINTWISE_ELU_ALPHA, math, *params->elu_alpha);
    if (params->swish_beta) set_scalar(pw, CUDNN_ATTR_POINTWISE_SWISH_BETA, math, *params->swish_beta);
    if (params->softplus_beta)
      set_scalar(pw, CUDNN_ATTR_POINTWISE_SOFTPLUS_BETA, math, *params->softplus_beta);
  }
  pw.finalize("pointwise descriptor");
  const Descriptor& kept = low.keep(std::move(pw));

  Descriptor op(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
  set(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, kept);
  set(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x);
  if (b) set(op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, *b);
  set(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y);
  op.finalize("pointwise operation");
  low.add_op(std::move(op), label);
}

void lower_pointwise(Lowering& low, const Node& node) {
  const auto& p = node.as<PointwiseParams>();
  if (p.arity() > 2) throw Unsupported("the cudnn provider lowers pointwise ops of one or two inputs");
  const Descriptor& x = low.tensor(input_uid(node, "in_0"));
  const Descriptor* b = p.arity() == 2 ? &low.tensor(input_uid(node, "in_1")) : nullptr;
  // Only pointwise-only graphs: a fusion (conv + bias) has its own rules for broadcast operands.
  if (p.arity() == 2 && low.elementwise())
    for (const char* role : {"in_0", "in_1"})
      if (auto h = broadcast_hint(low.graph(), input_uid(node, role), output_uid(node, "out_0")))
        low.hint(*h);
  const Descriptor& y = low.tensor(output_uid(node, "out_0"));
  add_pointwise(low, pointwise_mode(p.op), low.compute_type(node), x, b, y, pointwise_op_name(p.op), &p);
}

}  // namespace dnnbench::cudnn
