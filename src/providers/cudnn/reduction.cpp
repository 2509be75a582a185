// Reduction: out has 1s on the reduced dims.
#include "providers/cudnn/lowering.hpp"

namespace dnnbench::cudnn {

namespace {

cudnnReduceTensorOp_t reduce_op(ReductionMode mode) {
  switch (mode) {
    case ReductionMode::add:
      return CUDNN_REDUCE_TENSOR_ADD;
    case ReductionMode::mul:
      return CUDNN_REDUCE_TENSOR_MUL;
    case ReductionMode::min:
      return CUDNN_REDUCE_TENSOR_MIN;
    case ReductionMode::max:
      return CUDNN_REDUCE_TENSOR_MAX;
    case ReductionMode::amax:
      return CUDNN_REDUCE_TENSOR_AMAX;
    case ReductionMode::avg:
      return CUDNN_REDUCE_TENSOR_AVG;
    case ReductionMode::norm1:
      return CUDNN_REDUCE_TENSOR_NORM1;
    case ReductionMode::norm2:
      return CUDNN_REDUCE_TENSOR_NORM2;
    case ReductionMode::mul_no_zeros:
      break;
  }
  return CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS;
}

}  // namespace

void lower_reduction(Lowering& low, const Node& node) {
  const auto& p = node.as<ReductionParams>();
  Descriptor red(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
  set(red, CUDNN_ATTR_REDUCTION_OPERATOR, reduce_op(p.mode));
  set(red, CUDNN_ATTR_REDUCTION_COMP_TYPE, low.compute_type(node));
  if (lowering_variant("red_det")) set(red, CUDNN_ATTR_REDUCTION_IS_DETERMINISTIC, true);
  red.finalize("reduction descriptor of node '" + node.name + "'");
  const Descriptor& kept = low.keep(std::move(red));

  Descriptor op(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
  set(op, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, low.tensor(input_uid(node, "in")));
  set(op, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, low.tensor(output_uid(node, "out")));
  set(op, CUDNN_ATTR_OPERATION_REDUCTION_DESC, kept);
  op.finalize("reduction operation of node '" + node.name + "'");
  low.add_op(std::move(op), "reduction_" + std::string(reduction_mode_name(p.mode)));
}

}  // namespace dnnbench::cudnn
