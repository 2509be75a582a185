// RMS norm: y = x / sqrt(mean(x^2) + epsilon) * scale (+ bias) over the normalized axes.
#include "graph/ops/common.hpp"
#include "graph/ops/norm_axes.hpp"

namespace dnnbench {

namespace {

void parse_rmsnorm(const nlohmann::json& node_json, Node& node, const NodeContext& where) {
  node.params = RmsnormParams{.phase = parse_norm_phase(node_json, node, where)};
}

void validate_rmsnorm(const Graph& graph, Node& node, const NodeContext& where) {
  const TensorDesc& x = input_tensor(graph, node, where, "x");
  if (x.dims.size() < 2)
    node_error(where, port_path("inputs", "x"),
               "x \"" + x.name + "\" has rank " + std::to_string(x.dims.size()) + "; expected rank >= 2");
  for (std::string_view role : {"scale", "bias"}) {
    const TensorDesc* t =
        role == "scale" ? &input_tensor(graph, node, where, role) : optional_input(graph, node, role);
    if (t && !broadcasts_to(t->dims, x.dims))
      node_error(where, port_path("inputs", role),
                 std::string(role) + " \"" + t->name + "\" with dims " + dims_string(t->dims) +
                     " does not broadcast to x " + dims_string(x.dims));
  }
  check_scalar_input(graph, node, where, "epsilon");
  check_dims_equal(output_tensor(graph, node, where, "y"), x.dims, where, port_path("outputs", "y"), "y",
                   "same as x");
  if (const TensorDesc* inv_rms = optional_output(graph, node, "inv_rms")) {
    const std::string path = port_path("outputs", "inv_rms");
    bool ok = inv_rms->dims.size() == x.dims.size();
    bool any_reduced = false;
    for (std::size_t k = 0; ok && k < x.dims.size(); ++k) {
      ok = inv_rms->dims[k] == x.dims[k] || inv_rms->dims[k] == 1;
      any_reduced = any_reduced || inv_rms->dims[k] == 1;
    }
    if (!ok || !any_reduced)
      node_error(where, path,
                 "inv_rms \"" + inv_rms->name + "\" has dims " + dims_string(inv_rms->dims) +
                     "; expected x's dims " + dims_string(x.dims) +
                     " with the normalized axes set to 1 (at least one axis)");
  }
}

NodeCost cost_rmsnorm(const Graph& graph, const Node& node) {
  const TensorDesc* x = optional_input(graph, node, "x");
  if (!x) return {};
  double normalized = 1;
  for (int axis : rmsnorm_normalized_axes(graph, node)) normalized *= static_cast<double>(x->dims[axis]);
  // Square-and-add per element, then normalize and scale (and shift): about 5 per element.
  return {5.0 * product_f(x->dims), static_cast<std::int64_t>(normalized)};
}

// The keys of its settings object (reference/GRAPH-FORMAT.md).
constexpr std::string_view kRmsnormSettings[] = {"forward_phase"};

}  // namespace

std::vector<int> rmsnorm_normalized_axes(const Graph& graph, const Node& node) {
  const TensorDesc* x = optional_input(graph, node, "x");
  if (!x) return {};
  const int rank = static_cast<int>(x->dims.size());
  std::vector<int> axes;
  const TensorDesc* inv_rms = optional_output(graph, node, "inv_rms");
  if (inv_rms && inv_rms->dims.size() == x->dims.size()) {
    for (int axis = 0; axis < rank; ++axis)
      if (inv_rms->dims[static_cast<std::size_t>(axis)] == 1) axes.push_back(axis);
    return axes;
  }
  for (int axis = 1; axis < rank; ++axis) axes.push_back(axis);
  return axes;
}

const OpRules kRmsnormRules{"RMSNormAttributes", OpKind::rmsnorm, parse_rmsnorm,
                            validate_rmsnorm,    cost_rmsnorm,    kRmsnormSettings};

}  // namespace dnnbench
