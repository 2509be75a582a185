// Resample forward (pooling): max or average over a window per spatial dim.
#include "graph/ops/common.hpp"

namespace dnnbench {
namespace {

void parse_resample(const nlohmann::json& node_json, Node& node, const NodeContext& where) {
  ResampleParams p;
  const auto& settings = node_settings(node_json, node);
  if (const auto* mode = find_non_null(settings, "resample_mode"))
    p.mode = static_cast<ResampleMode>(
        json_choice(*mode, {"MAXPOOL", "AVGPOOL_INCLUDE_PADDING", "AVGPOOL_EXCLUDE_PADDING"}, where.file,
                    settings_path(node, where, "resample_mode"), "resample_mode"));
  // padding_mode (e.g. ZERO_PAD) is read for its type only: what padding contributes follows
  // from resample_mode (ignored by max, zeros counted or not by the averages).
  if (const auto* padding_mode = find_non_null(settings, "padding_mode"))
    json_string(*padding_mode, where.file, settings_path(node, where, "padding_mode"));
  p.window = optional_int_array_setting(node_json, node, where, "window");
  p.stride = optional_int_array_setting(node_json, node, where, "stride");
  p.pre_padding = optional_int_array_setting(node_json, node, where, "pre_padding");
  p.post_padding = optional_int_array_setting(node_json, node, where, "post_padding");
  node.params = std::move(p);
}

void validate_resample(const Graph& graph, Node& node, const NodeContext& where) {
  const TensorDesc& x = input_tensor(graph, node, where, "x");
  const TensorDesc& y = output_tensor(graph, node, where, "y");
  check_rank(x, {4, 5}, where, port_path("inputs", "x"), "x");
  check_rank(y, {x.dims.size()}, where, port_path("outputs", "y"), "y");
  const std::size_t spatial = x.dims.size() - 2;
  auto& p = std::get<ResampleParams>(node.params);
  if (p.window.empty())
    node_error(where, settings_sub_path(node, "window"),
               "missing required key `window` (the pooling window, one size per spatial dimension)");
  check_spatial_setting(p.window, "window", 1, 1, spatial, node, where);
  // A missing stride means windows that tile the input (stride = window), as in most poolings.
  if (p.stride.empty()) p.stride = p.window;
  check_spatial_setting(p.stride, "stride", 1, 1, spatial, node, where);
  check_spatial_setting(p.pre_padding, "pre_padding", 0, 0, spatial, node, where);
  check_spatial_setting(p.post_padding, "post_padding", 0, 0, spatial, node, where);

  std::vector<std::int64_t> expected{x.dims[0], x.dims[1]};
  for (std::size_t s = 0; s < spatial; ++s) {
    std::int64_t padded = 0;
    if (__builtin_add_overflow(x.dims[2 + s], p.pre_padding[s], &padded) ||
        __builtin_add_overflow(padded, p.post_padding[s], &padded))
      node_error(where, port_path("inputs", "x"), "pooling sizes overflow 64 bits");
    if (padded < p.window[s])
      node_error(where, index_path(settings_sub_path(node, "window"), s),
                 "window " + std::to_string(p.window[s]) + " is larger than the padded input " +
                     std::to_string(padded) + " in spatial dimension " + std::to_string(s) +
                     "; expected a window no larger than input + pre_padding + post_padding");
    expected.push_back((padded - p.window[s]) / p.stride[s] + 1);
  }
  check_dims_equal(
      y, expected, where, port_path("outputs", "y"), "y",
      "N and C of x; output size = floor((in + pre_padding + post_padding - window) / stride) + 1");
}

NodeCost cost_resample(const Graph& graph, const Node& node) {
  const TensorDesc* y = optional_output(graph, node, "y");
  const auto* p = std::get_if<ResampleParams>(&node.params);
  if (!y || !p) return {};
  const double window = product_f(p->window);
  return {product_f(y->dims) * window, static_cast<std::int64_t>(window)};
}

// The keys of its settings object (reference/GRAPH-FORMAT.md).
constexpr std::string_view kResampleSettings[] = {"window",       "stride",        "pre_padding",
                                                  "post_padding", "resample_mode", "padding_mode"};

}  // namespace

const OpRules kResampleRules{"ResampleFwdAttributes", OpKind::resample, parse_resample,
                             validate_resample,       cost_resample,    kResampleSettings};

}  // namespace dnnbench
