// Layer norm: normalizes x over its last `normalized_dim_count` axes, then scale and bias.
#include <algorithm>

#include "graph/ops/common.hpp"
#include "graph/ops/norm_axes.hpp"

namespace dnnbench {
namespace {

// Shared by layernorm and rmsnorm.
NormPhase parse_phase(const nlohmann::json& node_json, const Node& node, const NodeContext& where) {
  const auto* value = find_non_null(node_settings(node_json, node), "forward_phase");
  if (!value) return NormPhase::inference;
  return json_choice(*value, {"INFERENCE", "TRAINING"}, where.file,
                     settings_path(node, where, "forward_phase"), "forward_phase") == 0
             ? NormPhase::inference
             : NormPhase::training;
}

void parse_layernorm(const nlohmann::json& node_json, Node& node, const NodeContext& where) {
  LayernormParams p;
  p.phase = parse_phase(node_json, node, where);
  // Without `normalized_dim_count` the last axis alone is normalized (the common transformer
  // case, x [..., hidden]); files written by hipDNN always carry the count.
  if (const auto* count = find_non_null(node_settings(node_json, node), "normalized_dim_count"))
    p.normalized_dim_count = json_int(*count, where.file, settings_path(node, where, "normalized_dim_count"));
  node.params = p;
}

void validate_layernorm(const Graph& graph, Node& node, const NodeContext& where) {
  const auto& p = node.as<LayernormParams>();
  const TensorDesc& x = input_tensor(graph, node, where, "x");
  const auto rank = static_cast<std::int64_t>(x.dims.size());
  if (rank < 2)
    node_error(where, port_path("inputs", "x"),
               "x \"" + x.name + "\" has rank " + std::to_string(rank) + "; expected rank >= 2");
  if (p.normalized_dim_count < 1 || p.normalized_dim_count > rank - 1)
    node_error(where, settings_sub_path(node, "normalized_dim_count"),
               "normalized_dim_count is " + std::to_string(p.normalized_dim_count) + " but x has rank " +
                   std::to_string(rank) + "; expected 1 to " + std::to_string(rank - 1));
  for (std::string_view role : {"scale", "bias"}) {
    const TensorDesc& t = input_tensor(graph, node, where, role);
    if (!broadcasts_to(t.dims, x.dims))
      node_error(where, port_path("inputs", role),
                 std::string(role) + " \"" + t.name + "\" with dims " + dims_string(t.dims) +
                     " does not broadcast to x " + dims_string(x.dims));
  }
  check_scalar_input(graph, node, where, "epsilon");
  check_dims_equal(output_tensor(graph, node, where, "y"), x.dims, where, port_path("outputs", "y"), "y",
                   "same as x");
  auto stats = x.dims;
  for (int axis : layernorm_normalized_axes(graph, node)) stats[static_cast<std::size_t>(axis)] = 1;
  for (std::string_view role : {"mean", "inv_variance"})
    if (const TensorDesc* t = optional_output(graph, node, role))
      check_dims_equal(*t, stats, where, port_path("outputs", role), role,
                       "x dims with the normalized axes set to 1");
}

NodeCost cost_layernorm(const Graph& graph, const Node& node) {
  const TensorDesc* x = optional_input(graph, node, "x");
  if (!x) return {};
  double normalized = 1;
  for (int axis : layernorm_normalized_axes(graph, node)) normalized *= static_cast<double>(x->dims[axis]);
  // Mean and variance passes (2 + 2 per element), then normalize, scale and shift (3).
  return {7.0 * product_f(x->dims), static_cast<std::int64_t>(normalized)};
}

// The keys of its settings object (reference/GRAPH-FORMAT.md).
constexpr std::string_view kLayernormSettings[] = {"normalized_dim_count", "forward_phase"};

}  // namespace

std::vector<int> layernorm_normalized_axes(const Graph& graph, const Node& node) {
  const TensorDesc* x = optional_input(graph, node, "x");
  if (!x) return {};
  const int rank = static_cast<int>(x->dims.size());
  const auto* p = std::get_if<LayernormParams>(&node.params);
  const int count = p ? static_cast<int>(std::clamp<std::int64_t>(p->normalized_dim_count, 0, rank)) : 1;
  std::vector<int> axes;
  for (int axis = rank - count; axis < rank; ++axis) axes.push_back(axis);
  return axes;
}

NormPhase parse_norm_phase(const nlohmann::json& node_json, const Node& node, const NodeContext& where) {
  return parse_phase(node_json, node, where);
}

const OpRules kLayernormRules{"LayernormAttributes", OpKind::layernorm, parse_layernorm,
                              validate_layernorm,    cost_layernorm,    kLayernormSettings};

}  // namespace dnnbench
