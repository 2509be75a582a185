// Reduction: out has in's rank with 1 in every reduced axis.
#include "graph/ops/common.hpp"

namespace dnnbench {
namespace {

void parse_reduction(const nlohmann::json& node_json, Node& node, const NodeContext& where) {
  ReductionParams p;
  const auto* mode = find_non_null(node_settings(node_json, node), "mode");
  if (!mode)
    node_error(
        where, settings_sub_path(node, "mode"),
        "missing required key `mode` (one of ADD, MUL, MIN, MAX, AMAX, AVG, NORM1, NORM2, MUL_NO_ZEROS)");
  // Same order as ReductionMode.
  const std::size_t index =
      json_choice(*mode, {"ADD", "MUL", "MIN", "MAX", "AMAX", "AVG", "NORM1", "NORM2", "MUL_NO_ZEROS"},
                  where.file, settings_path(node, where, "mode"), "reduction mode");
  p.mode = static_cast<ReductionMode>(index);
  node.params = p;
}

void validate_reduction(const Graph& graph, Node& node, const NodeContext& where) {
  const TensorDesc& in = input_tensor(graph, node, where, "in");
  const TensorDesc& out = output_tensor(graph, node, where, "out");
  bool ok = in.dims.size() == out.dims.size();
  for (std::size_t k = 0; ok && k < in.dims.size(); ++k) ok = out.dims[k] == in.dims[k] || out.dims[k] == 1;
  if (!ok)
    node_error(where, port_path("outputs", "out"),
               "out \"" + out.name + "\" has dims " + dims_string(out.dims) + " but in \"" + in.name +
                   "\" has dims " + dims_string(in.dims) +
                   "; expected the same rank with each dim equal to in's or 1 (reduced)");
}

NodeCost cost_reduction(const Graph& graph, const Node& node) {
  const TensorDesc* in = optional_input(graph, node, "in");
  const TensorDesc* out = optional_output(graph, node, "out");
  if (!in || !out) return {};
  const double in_count = product_f(in->dims), out_count = product_f(out->dims);
  // One accumulation per input element.
  return {in_count, out_count > 0 ? static_cast<std::int64_t>(in_count / out_count) : 1};
}

// The keys of its settings object (reference/GRAPH-FORMAT.md).
// `is_deterministic` (a request for a fixed summation order, as in cuDNN's frontend) changes no
// value here: every provider of this tool sums in a fixed order.
constexpr std::string_view kReductionSettings[] = {"mode", "is_deterministic"};

}  // namespace

const OpRules kReductionRules{"ReductionAttributes", OpKind::reduction, parse_reduction,
                              validate_reduction,    cost_reduction,    kReductionSettings};

}  // namespace dnnbench
