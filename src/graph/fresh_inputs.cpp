#include "graph/fresh_inputs.hpp"

#include <algorithm>
#include <string_view>

namespace dnnbench {
namespace {

// The roles of an op that its producer wrote just before it runs (graph/fresh_inputs.hpp).
std::vector<std::string_view> fresh_roles(OpKind kind) {
  switch (kind) {
    case OpKind::conv_fwd:
    case OpKind::batchnorm_inference:
    case OpKind::batchnorm_training:
    case OpKind::layernorm:
    case OpKind::rmsnorm:
    case OpKind::resample:
      return {"x"};
    // A backward op reads the gradient the next layer's backward has just written; x (a weight
    // gradient's, a batch-norm backward's) was saved a whole forward pass ago.
    case OpKind::conv_bwd_data:
    case OpKind::conv_bwd_weights:
    case OpKind::batchnorm_backward:
      return {"dy"};
    // The activation; b is the weight of a linear layer (of attention's own products both are
    // fresh, but a graph does not say which it is).
    case OpKind::matmul:
      return {"a"};
    case OpKind::pointwise:
      return {"in_0"};
    case OpKind::reduction:
      return {"in"};
    // q, k and v come from the projections just before; the backward's o and stats from its
    // forward, a pass ago.
    case OpKind::sdpa_fwd:
      return {"q", "k", "v"};
    case OpKind::sdpa_bwd:
      return {"do"};
    case OpKind::unsupported:
      break;
  }
  return {};
}

}  // namespace

std::vector<std::int64_t> fresh_input_uids(const Graph& graph) {
  const auto inputs = graph.input_uids();
  std::vector<std::int64_t> fresh;
  for (const auto& node : graph.nodes)
    for (const auto role : fresh_roles(node.kind)) {
      const auto uid = node.input(role);
      if (!uid || std::find(inputs.begin(), inputs.end(), *uid) == inputs.end()) continue;
      const auto& t = graph.tensor(*uid);
      if (t.is_by_value()) continue;
      if (std::find(fresh.begin(), fresh.end(), *uid) == fresh.end()) fresh.push_back(*uid);
    }
  return fresh;
}

}  // namespace dnnbench
