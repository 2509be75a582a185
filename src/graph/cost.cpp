#include "graph/cost.hpp"

#include <algorithm>

#include "graph/ops/op_rules.hpp"

namespace dnnbench {

GraphCost graph_cost(const Graph& graph) {
  GraphCost cost;
  for (const auto& node : graph.nodes) {
    const OpRules* rules = find_op_rules(node.type);
    if (!rules || node.kind == OpKind::unsupported) continue;  // not executed: no figures
    const NodeCost c = rules->cost(graph, node);
    cost.flops += c.flops;
    cost.reduction_length = std::max(cost.reduction_length, c.reduction_length);
  }
  // Every tensor the user binds is read or written once; virtual ones stay on chip, and by-value
  // scalars travel as kernel arguments.
  for (const auto& t : graph.tensors)
    if (!t.is_virtual && !t.is_by_value())
      cost.min_bytes += static_cast<double>(t.element_count()) * static_cast<double>(dtype_size(t.dtype));
  return cost;
}

DataType roofline_data_type(const Graph& graph) {
  const Node* chosen = nullptr;
  for (const auto& node : graph.nodes)
    if (node.kind == OpKind::matmul || node.kind == OpKind::conv_fwd || node.kind == OpKind::conv_bwd_data ||
        node.kind == OpKind::conv_bwd_weights) {
      chosen = &node;
      break;
    }
  if (!chosen && !graph.nodes.empty()) chosen = &graph.nodes.front();
  if (!chosen || chosen->inputs.empty()) return DataType::unset;
  const auto* tensor = graph.find_tensor(chosen->inputs.front().uid);
  return tensor ? tensor->dtype : DataType::unset;
}

std::vector<std::string> op_families(const Graph& graph) {
  std::vector<std::string> families;
  for (const auto& node : graph.nodes) {
    const std::string family(node.kind == OpKind::unsupported ? node.type : op_kind_name(node.kind));
    if (std::find(families.begin(), families.end(), family) == families.end()) families.push_back(family);
  }
  return families;
}

}  // namespace dnnbench
