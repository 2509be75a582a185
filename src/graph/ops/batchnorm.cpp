// Batch norm, per channel (dim 1) of x = [N, C, spatial...].
//   Inference: y = (x - mean) * inv_variance * scale + bias, or with `variance` + `epsilon` in
//     place of `inv_variance` (...VarianceExt).
//   Training (BatchnormAttributes): the statistics are the batch's (mean and biased variance over
//     N and the spatial dims); optional outputs `mean`, `inv_variance` (saved for the backward
//     pass) and, with `prev_running_mean/variance` and `momentum`, the running averages
//     `next_running_* = (1 - momentum) * prev + momentum * batch` (the variance unbiased).
//   Backward (BatchnormBackwardAttributes): dx, dscale, dbias from dy, x and the saved mean and
//     inv_variance.
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

// A per-channel role (required unless `optional`); returns whether it is present.
bool check_per_channel(const Graph& graph, const Node& node, const NodeContext& where, const TensorDesc& x,
                       std::string_view role, bool is_output, bool optional) {
  const TensorDesc* t = is_output ? optional_output(graph, node, role) : optional_input(graph, node, role);
  if (!t && !optional)
    t = is_output ? &output_tensor(graph, node, where, role) : &input_tensor(graph, node, where, role);
  if (!t) return false;
  if (!is_per_channel(t->dims, x.dims)) {
    std::vector<std::int64_t> stats_shape(x.dims.size(), 1);
    stats_shape[1] = x.dims[1];
    node_error(where, port_path(is_output ? "outputs" : "inputs", role),
               std::string(role) + " \"" + t->name + "\" has dims " + dims_string(t->dims) + "; expected " +
                   dims_string(stats_shape) + " (one value per channel of x " + dims_string(x.dims) + ")");
  }
  return true;
}

const TensorDesc& check_x(const Graph& graph, const Node& node, const NodeContext& where,
                          std::string_view role) {
  const TensorDesc& x = input_tensor(graph, node, where, role);
  if (x.dims.size() < 2)
    node_error(where, port_path("inputs", role),
               std::string(role) + " \"" + x.name + "\" has rank " + std::to_string(x.dims.size()) +
                   "; expected rank >= 2 ([N, C, spatial...])");
  return x;
}

void validate_batchnorm_training(const Graph& graph, Node& node, const NodeContext& where) {
  const TensorDesc& x = check_x(graph, node, where, "x");
  check_per_channel(graph, node, where, x, "scale", false, false);
  check_per_channel(graph, node, where, x, "bias", false, false);
  check_scalar_input(graph, node, where, "epsilon");
  check_dims_equal(output_tensor(graph, node, where, "y"), x.dims, where, port_path("outputs", "y"), "y",
                   "same as x");
  const bool mean = check_per_channel(graph, node, where, x, "mean", true, true);
  const bool inv = check_per_channel(graph, node, where, x, "inv_variance", true, true);
  if (mean != inv)
    node_error(where, port_path("outputs", mean ? "inv_variance" : "mean"),
               "the saved statistics come as a pair: mean and inv_variance, or neither");
  // Running averages: all of prev_running_mean/variance, momentum, next_running_mean/variance, or none.
  const bool prev_mean = check_per_channel(graph, node, where, x, "prev_running_mean", false, true);
  const bool prev_var = check_per_channel(graph, node, where, x, "prev_running_variance", false, true);
  const bool next_mean = check_per_channel(graph, node, where, x, "next_running_mean", true, true);
  const bool next_var = check_per_channel(graph, node, where, x, "next_running_variance", true, true);
  const bool running = prev_mean || prev_var || next_mean || next_var;
  if (running && !(prev_mean && prev_var && next_mean && next_var))
    node_error(where, port_path("inputs", "prev_running_mean"),
               "running averages need prev_running_mean, prev_running_variance, next_running_mean and "
               "next_running_variance together");
  if (running) check_scalar_input(graph, node, where, "momentum");
}

void validate_batchnorm_backward(const Graph& graph, Node& node, const NodeContext& where) {
  const TensorDesc& x = check_x(graph, node, where, "x");
  check_dims_equal(input_tensor(graph, node, where, "dy"), x.dims, where, port_path("inputs", "dy"), "dy",
                   "same as x");
  for (std::string_view role : {"mean", "inv_variance", "scale"})
    check_per_channel(graph, node, where, x, role, false, false);
  check_dims_equal(output_tensor(graph, node, where, "dx"), x.dims, where, port_path("outputs", "dx"), "dx",
                   "same as x");
  for (std::string_view role : {"dscale", "dbias"})
    check_per_channel(graph, node, where, x, role, true, false);
}

NodeCost cost_batchnorm(const Graph& graph, const Node& node) {
  const TensorDesc* x = optional_input(graph, node, "x");
  if (!x) return {};
  // Subtract, two multiplies and an add per element. Statistics are given, so nothing is
  // accumulated: the reduction length is 1.
  return {4.0 * product_f(x->dims), 1};
}

// Statistics over N and the spatial dims: the reduction length of each channel.
std::int64_t per_channel_count(const TensorDesc& x) {
  std::int64_t n = 1;
  for (std::size_t k = 0; k < x.dims.size(); ++k)
    if (k != 1) n *= x.dims[k];
  return n;
}

NodeCost cost_batchnorm_training(const Graph& graph, const Node& node) {
  const TensorDesc* x = optional_input(graph, node, "x");
  if (!x) return {};
  // Sum and sum of squares (3 per element), then normalize, scale and shift (4 per element).
  return {7.0 * product_f(x->dims), per_channel_count(*x)};
}

NodeCost cost_batchnorm_backward(const Graph& graph, const Node& node) {
  const TensorDesc* x = optional_input(graph, node, "x");
  if (!x) return {};
  // x-hat and the two sums (5 per element), then dx (4 per element).
  return {9.0 * product_f(x->dims), per_channel_count(*x)};
}

}  // namespace

const OpRules kBatchnormTrainingRules{"BatchnormAttributes",   OpKind::batchnorm_training,
                                      parse_batchnorm,         validate_batchnorm_training,
                                      cost_batchnorm_training, {}};
const OpRules kBatchnormBackwardRules{
    "BatchnormBackwardAttributes", OpKind::batchnorm_backward, parse_batchnorm,
    validate_batchnorm_backward,   cost_batchnorm_backward,    {}};

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
