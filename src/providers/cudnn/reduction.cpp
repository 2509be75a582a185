// Reduction: out has 1s on the reduced dims. cuDNN 9.14's reduction engine (measured on the H200,
// 2026-12-01) runs ADD, MIN and MAX (MUL: "Unsupported reduction op"; AVG, NORM1, NORM2: the
// REDUCTION descriptor itself is refused) over a row reduction (the fastest dims), a column
// reduction (all but the fastest) or the whole tensor, of channels-last tensors. So the node is
// shown in the fewest dims its memory allows (graph/views.hpp): [kept, reduced] as a row
// reduction of [K, R, 1, 1] over its C, [reduced, kept] as a column reduction of [R, K, 1, 1]
// over N, [reduced] as [1, R, 1, 1]. Other patterns keep the relabelled padded view (lowering.cpp)
// and cuDNN says why it refuses.
#include "graph/views.hpp"
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

// NHWC-packed [n, c, 1, 1] with the given strides of n and c (the unit dims span c's extent).
Shape nc11(std::int64_t n, std::int64_t c, std::int64_t n_stride, std::int64_t c_stride) {
  const std::int64_t span = std::max<std::int64_t>(c * c_stride, 1);
  return {{n, c, 1, 1}, {n == 1 ? span : n_stride, c == 1 ? 1 : c_stride, span, span}};
}

struct ReductionShapes {
  Shape in, out;
};

std::optional<ReductionShapes> two_d_view(const TensorDesc& in, const TensorDesc& out) {
  const auto groups = reduction_groups(in.dims, in.strides, out.dims, out.strides);
  if (!groups) return std::nullopt;
  const auto& g = *groups;
  if (g.size() == 1 && g[0].reduced)  // whole tensor
    return ReductionShapes{nc11(1, g[0].extent, 0, g[0].in_stride), nc11(1, 1, 1, 1)};
  if (g.size() == 2 && !g[0].reduced && g[1].reduced)  // row: the fastest dims reduced
    return ReductionShapes{nc11(g[0].extent, g[1].extent, g[0].in_stride, g[1].in_stride),
                           nc11(g[0].extent, 1, g[0].out_stride, 1)};
  if (g.size() == 2 && g[0].reduced && !g[1].reduced)  // column: all but the fastest reduced
    return ReductionShapes{nc11(g[0].extent, g[1].extent, g[0].in_stride, g[1].in_stride),
                           nc11(1, g[1].extent, 0, g[1].out_stride)};
  return std::nullopt;
}

// Refused by cuDNN 9.14 on the H200 whatever the shapes (AMAX and MUL_NO_ZEROS: not measured).
bool refused_mode(ReductionMode mode) {
  return mode == ReductionMode::mul || mode == ReductionMode::avg || mode == ReductionMode::norm1 ||
         mode == ReductionMode::norm2;
}

}  // namespace

void lower_reduction(Lowering& low, const Node& node) {
  const auto& p = node.as<ReductionParams>();
  if (refused_mode(p.mode))
    low.hint("cuDNN 9.14 reduces with ADD, MIN and MAX; it refuses " +
             std::string(reduction_mode_name(p.mode)) + " whatever the shapes");
  Descriptor red(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
  set(red, CUDNN_ATTR_REDUCTION_OPERATOR, reduce_op(p.mode));
  set(red, CUDNN_ATTR_REDUCTION_COMP_TYPE, low.compute_type(node));
  red.finalize("reduction descriptor of node '" + node.name + "'");
  const Descriptor& kept = low.keep(std::move(red));

  Descriptor op(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
  const std::int64_t in = input_uid(node, "in"), out = output_uid(node, "out");
  if (const auto view = two_d_view(low.graph().tensor(in), low.graph().tensor(out))) {
    set(op, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, low.tensor(in, view->in));
    set(op, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, low.tensor(out, view->out));
  } else {
    low.hint(
        "cuDNN's reduction engine takes a row reduction (the fastest dims in memory), a column reduction "
        "(all "
        "but the fastest) or a whole-tensor reduction; this graph reduces other dims");
    set(op, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, low.tensor(in));
    set(op, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, low.tensor(out));
  }
  set(op, CUDNN_ATTR_OPERATION_REDUCTION_DESC, kept);
  op.finalize("reduction operation of node '" + node.name + "'");
  low.add_op(std::move(op), "reduction_" + std::string(reduction_mode_name(p.mode)));
}

}  // namespace dnnbench::cudnn
