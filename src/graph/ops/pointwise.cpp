// Pointwise: out_0 = op(in_0[, in_1]); inputs broadcast to the output. The file puts the op
// settings inline in `inputs` (reference/GRAPH-FORMAT.md); `parameters`/`attributes` are read
// too, for files that move them there.
#include "graph/errors.hpp"
#include "graph/ops/common.hpp"

namespace dnnbench {
namespace {

// The canonical spelling of every op, for "expected one of" messages.
std::string pointwise_op_list() {
  std::string list;
  for (int op = static_cast<int>(PointwiseOp::add); op <= static_cast<int>(PointwiseOp::identity); ++op)
    list += (list.empty() ? "" : ", ") + std::string(pointwise_op_name(static_cast<PointwiseOp>(op)));
  return list;
}

// A pointwise setting: inline in `inputs` first, then in the settings object. Returns the value
// (nullptr when absent or null) and its JSON path.
std::pair<const nlohmann::json*, std::string> find_setting(const nlohmann::json& node_json, const Node& node,
                                                           const NodeContext& where, std::string_view key) {
  if (const auto* inputs = find_member(node_json, "inputs"); inputs && inputs->is_object())
    if (const auto* value = find_non_null(*inputs, key))
      return {value, join_path(where.path + ".inputs", key)};
  if (const auto* value = find_non_null(node_settings(node_json, node), key))
    return {value, settings_path(node, where, key)};
  return {nullptr, join_path(where.path + ".inputs", key)};
}

void parse_pointwise(const nlohmann::json& node_json, Node& node, const NodeContext& where) {
  PointwiseParams p;
  const auto [operation, op_path] = find_setting(node_json, node, where, "operation");
  if (!operation)
    throw InputError(
        where.file, op_path,
        "missing required key `operation` (the pointwise op; one of " + pointwise_op_list() + ")");
  const std::string name = json_string(*operation, where.file, op_path);
  const auto op = parse_pointwise_op(name);
  if (!op)
    throw InputError(where.file, op_path,
                     "unknown pointwise operation \"" + name + "\"; expected one of " + pointwise_op_list());
  p.op = *op;
  const auto read_optional = [&](std::string_view key, std::optional<double>& out) {
    const auto [value, path] = find_setting(node_json, node, where, key);
    if (value) out = json_number(*value, where.file, path);
  };
  read_optional("relu_lower_clip", p.relu_lower_clip);
  read_optional("relu_upper_clip", p.relu_upper_clip);
  read_optional("relu_lower_clip_slope", p.relu_lower_clip_slope);
  read_optional("swish_beta", p.swish_beta);
  read_optional("elu_alpha", p.elu_alpha);
  read_optional("softplus_beta", p.softplus_beta);
  node.params = p;
}

void validate_pointwise(const Graph& graph, Node& node, const NodeContext& where) {
  const auto& p = node.as<PointwiseParams>();
  const std::string op_name(pointwise_op_name(p.op));
  const TensorDesc& out = output_tensor(graph, node, where, "out_0");
  const int arity = p.arity();
  for (int k = 0; k < 3; ++k) {
    const std::string role = "in_" + std::to_string(k);
    if (k < arity) {
      const TensorDesc& in = input_tensor(graph, node, where, role);
      if (!broadcasts_to(in.dims, out.dims))
        node_error(where, port_path("inputs", role),
                   role + " \"" + in.name + "\" with dims " + dims_string(in.dims) +
                       " does not broadcast to out_0 \"" + out.name + "\" with dims " +
                       dims_string(out.dims) +
                       "; expected each dim (aligned from the right) to equal out_0's or be 1");
    } else if (node.input(role)) {
      node_error(where, port_path("inputs", role),
                 op_name + " takes " + std::to_string(arity) + (arity == 1 ? " input" : " inputs") + " but " +
                     role + " is given; expected it absent or null");
    }
  }
  if (p.relu_upper_clip && p.relu_lower_clip && *p.relu_upper_clip < *p.relu_lower_clip)
    node_error(where, "inputs.relu_upper_clip",
               "relu_upper_clip " + std::to_string(*p.relu_upper_clip) + " is below relu_lower_clip " +
                   std::to_string(*p.relu_lower_clip));
}

NodeCost cost_pointwise(const Graph& graph, const Node& node) {
  const TensorDesc* out = optional_output(graph, node, "out_0");
  if (!out) return {};
  // One operation per output element; transcendental ops cost more on real hardware, but the
  // figure is for throughput bookkeeping, where elementwise ops are bandwidth-bound anyway.
  return {product_f(out->dims), 1};
}

// The keys of its settings object (reference/GRAPH-FORMAT.md).
constexpr std::string_view kPointwiseSettings[] = {
    "operation",  "relu_lower_clip", "relu_upper_clip", "relu_lower_clip_slope",
    "swish_beta", "elu_alpha",       "softplus_beta"};

}  // namespace

const OpRules kPointwiseRules{"PointwiseAttributes", OpKind::pointwise, parse_pointwise,
                              validate_pointwise,    cost_pointwise,    kPointwiseSettings};

}  // namespace dnnbench
