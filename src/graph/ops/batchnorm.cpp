// Batchnorm inference: y = (x - mean) * inv_variance * scale + bias per channel, or with
// `variance` + `epsilon` in place of `inv_variance` (...VarianceExt).
#include "graph/ops/common.hpp"

namespace dnnbench {
namespace {

void parse_batchnorm(const nlohmann::json&, Node& node, const NodeContext&) {
  node.params = BatchnormParams{};
}

void parse_batchnorm_variance_ext(const nlohmann::json&, Node& node, const NodeContext&) {
  node.params = BatchnormParams{.variance_ext = true};
}

// Per-channel statistics hold C elements: [C], or x's rank with C at axis 1 and 1 elsewhere.
bool is_per_channel(const std::vector<std::int64_t>& dims, const std::vector<std::int64_t>& x_dims) {
  if (dims.size() == 1) return dims[0] == x_dims[1];
  if (dims.size() != x_dims.size()) return false;
  for (std::size_t k = 0; k < dims.size(); ++k)
    if (dims[k] != (k == 1 ? x_dims[1] : 1)) return false;
  return true;
}

void validate_batchnorm(const Graph& graph, Node& node, const NodeContext& where) {
  const bool ext = node.as<BatchnormParams>().variance_ext;
  const TensorDesc& x = input_tensor(graph, node, where, "x");
  if (x.dims.size() < 2)
    node_error(where, port_path("inputs", "x"),
               "x \"" + x.name + "\" has rank " + std::to_string(x.dims.size()) +
                   "; expected rank >= 2 ([N, C, spatial...])");
  std::vector<std::int64_t> stats_shape(x.dims.size(), 1);
  stats_shape[1] = x.dims[1];
  for (std::string_view role : {std::string_view("mean"), ext ? std::string_view("variance") : "inv_variance",
                                std::string_view("scale"), std::string_view("bias")}) {
    const TensorDesc& t = input_tensor(graph, node, where, role);
    if (!is_per_channel(t.dims, x.dims))
      node_error(where, port_path("inputs", role),
                 std::string(role) + " \"" + t.name + "\" has dims " + dims_string(t.dims) + "; expected " +
                     dims_string(stats_shape) + " (one value per channel of x " + dims_string(x.dims) + ")");
  }
  if (ext) check_scalar_input(graph, node, where, "epsilon");
  check_dims_equal(output_tensor(graph, node, where, "y"), x.dims, where, port_path("outputs", "y"), "y",
                   "same as x");
}

NodeCost cost_batchnorm(const Graph& graph, const Node& node) {
  const TensorDesc* x = optional_input(graph, node, "x");
  if (!x) return {};
  // Subtract, two multiplies and an add per element. Statistics are given, so nothing is
  // accumulated: the reduction length is 1.
  return {4.0 * product_f(x->dims), 1};
}

}  // namespace

const OpRules kBatchnormInferenceRules{"BatchnormInferenceAttributes",
                                       OpKind::batchnorm_inference,
                                       parse_batchnorm,
                                       validate_batchnorm,
                                       cost_batchnorm,
                                       {}};
const OpRules kBatchnormInferenceVarianceExtRules{"BatchnormInferenceAttributesVarianceExt",
                                                  OpKind::batchnorm_inference,
                                                  parse_batchnorm_variance_ext,
                                                  validate_batchnorm,
                                                  cost_batchnorm,
                                                  {}};

}  // namespace dnnbench
