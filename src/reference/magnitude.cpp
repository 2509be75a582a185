#include "reference/magnitude.hpp"

#include <cmath>

namespace dnnbench {

namespace {

bool is_contraction(OpKind kind) {
  return kind == OpKind::conv_fwd || kind == OpKind::conv_bwd_data || kind == OpKind::conv_bwd_weights ||
         kind == OpKind::matmul;
}

// Pointwise steps after which the magnitudes of the inputs still bound the magnitude of the
// output and of its error: a sum's terms add, a product scales, relu and identity do not grow it.
// Subtraction, negation and division would make the absolute-value run no bound at all.
bool keeps_magnitude_bound(const Node& node) {
  if (node.kind != OpKind::pointwise) return false;
  switch (node.as<PointwiseParams>().op) {
    case PointwiseOp::add:
    case PointwiseOp::mul:
    case PointwiseOp::relu:
    case PointwiseOp::identity:
      return true;
    default:
      return false;
  }
}

}  // namespace

bool magnitude_reference_applies(const Graph& graph) {
  bool contraction = false;
  for (const auto& node : graph.nodes) {
    if (is_contraction(node.kind))
      contraction = true;
    else if (!keeps_magnitude_bound(node))
      return false;
  }
  return contraction;
}

void take_absolute_values(Values& values) {
  for (auto& [uid, dense] : values)
    for (auto& v : dense.data) v = std::abs(v);
}

}  // namespace dnnbench
