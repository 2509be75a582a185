// Convolution forward, backward data and backward weights: settings, shape rules, cost.
// All three share one geometry: x [N, C, spatial...], w [K, C/groups, kernel...],
// y [N, K, out...]; they differ in which of x, w, y are inputs and which is the output.
#include "graph/ops/common.hpp"

namespace dnnbench {
namespace {

struct ConvRole {
  std::string_view role;  // the file's role name
  bool is_output;
};
struct ConvRoles {
  ConvRole x, w, y;
};

ConvRoles conv_roles(OpKind kind) {
  switch (kind) {
    case OpKind::conv_bwd_data:
      return {{"dx", true}, {"w", false}, {"dy", false}};
    case OpKind::conv_bwd_weights:
      return {{"x", false}, {"dw", true}, {"dy", false}};
    default:
      return {{"x", false}, {"w", false}, {"y", true}};
  }
}

const TensorDesc& role_tensor(const Graph& graph, const Node& node, const NodeContext& where, ConvRole r) {
  return r.is_output ? output_tensor(graph, node, where, r.role) : input_tensor(graph, node, where, r.role);
}

const TensorDesc* find_role_tensor(const Graph& graph, const Node& node, ConvRole r) {
  return r.is_output ? optional_output(graph, node, r.role) : optional_input(graph, node, r.role);
}

std::string role_path(ConvRole r) {
  return port_path(r.is_output ? "outputs" : "inputs", r.role);
}

void parse_conv(const nlohmann::json& node_json, Node& node, const NodeContext& where) {
  ConvParams p;
  const auto& settings = node_settings(node_json, node);
  if (const auto* mode = find_non_null(settings, "conv_mode"))
    p.cross_correlation = json_choice(*mode, {"CROSS_CORRELATION", "CONVOLUTION"}, where.file,
                                      settings_path(node, where, "conv_mode"), "conv_mode") == 0;
  p.pre_padding = optional_int_array_setting(node_json, node, where, "pre_padding");
  p.post_padding = optional_int_array_setting(node_json, node, where, "post_padding");
  p.stride = optional_int_array_setting(node_json, node, where, "stride");
  p.dilation = optional_int_array_setting(node_json, node, where, "dilation");
  node.params = std::move(p);
}

void validate_conv(const Graph& graph, Node& node, const NodeContext& where) {
  const ConvRoles roles = conv_roles(node.kind);
  const TensorDesc& x = role_tensor(graph, node, where, roles.x);
  const TensorDesc& w = role_tensor(graph, node, where, roles.w);
  const TensorDesc& y = role_tensor(graph, node, where, roles.y);

  check_rank(x, {4, 5}, where, role_path(roles.x), roles.x.role);
  const std::size_t rank = x.dims.size();
  check_rank(w, {rank}, where, role_path(roles.w), roles.w.role);
  check_rank(y, {rank}, where, role_path(roles.y), roles.y.role);
  const std::size_t spatial = rank - 2;

  auto& p = std::get<ConvParams>(node.params);
  check_spatial_setting(p.pre_padding, "pre_padding", 0, 0, spatial, node, where);
  check_spatial_setting(p.post_padding, "post_padding", 0, 0, spatial, node, where);
  check_spatial_setting(p.stride, "stride", 1, 1, spatial, node, where);
  check_spatial_setting(p.dilation, "dilation", 1, 1, spatial, node, where);

  const std::string xs = std::string(roles.x.role), ws = std::string(roles.w.role),
                    ys = std::string(roles.y.role);
  const std::int64_t channels = x.dims[1], per_group = w.dims[1], filters = w.dims[0];
  if (channels % per_group != 0)
    node_error(where, role_path(roles.w),
               xs + " has " + std::to_string(channels) + " channels, not a multiple of " + ws + "'s " +
                   std::to_string(per_group) + " channels per group (" + ws + " dims " + dims_string(w.dims) +
                   "); expected " + ws + ".dims[1] to divide " + xs + ".dims[1]");
  const std::int64_t groups = channels / per_group;
  if (filters % groups != 0)
    node_error(where, role_path(roles.w),
               ws + " has " + std::to_string(filters) + " filters (dims[0]), not a multiple of the " +
                   std::to_string(groups) + " groups implied by " + xs + " channels " +
                   std::to_string(channels) + " / " + ws + " channels per group " +
                   std::to_string(per_group));
  p.groups = groups;

  std::vector<std::int64_t> expected_y{x.dims[0], filters};
  for (std::size_t s = 0; s < spatial; ++s) {
    const std::int64_t in = x.dims[2 + s], kernel = w.dims[2 + s];
    std::int64_t extent = 0, padded = 0;  // dilated kernel extent - 1; padded input
    if (__builtin_mul_overflow(p.dilation[s], kernel - 1, &extent) ||
        __builtin_add_overflow(in, p.pre_padding[s], &padded) ||
        __builtin_add_overflow(padded, p.post_padding[s], &padded))
      node_error(where, role_path(roles.w),
                 "convolution sizes overflow 64 bits in spatial dimension " + std::to_string(s));
    if (padded - extent - 1 < 0)
      node_error(where, role_path(roles.w),
                 "the dilated kernel (" + std::to_string(extent + 1) + ") is larger than the padded input (" +
                     std::to_string(padded) + ") in spatial dimension " + std::to_string(s) +
                     ": the output would be empty; expected a smaller kernel or dilation, or more padding");
    expected_y.push_back((padded - extent - 1) / p.stride[s] + 1);
  }
  if (y.dims[0] != x.dims[0])
    node_error(where, role_path(roles.y),
               ys + " has batch " + std::to_string(y.dims[0]) + " but " + xs + " has batch " +
                   std::to_string(x.dims[0]) + "; expected equal N");
  if (y.dims[1] != filters)
    node_error(where, role_path(roles.y),
               ys + " has " + std::to_string(y.dims[1]) + " channels; expected " + std::to_string(filters) +
                   " (the filter count K = " + ws + ".dims[0])");
  check_dims_equal(
      y, expected_y, where, role_path(roles.y), roles.y.role,
      "output size = floor((in + pre_padding + post_padding - dilation*(kernel-1) - 1) / stride) + 1");
}

NodeCost cost_conv(const Graph& graph, const Node& node) {
  const ConvRoles roles = conv_roles(node.kind);
  const TensorDesc* x = find_role_tensor(graph, node, roles.x);
  const TensorDesc* w = find_role_tensor(graph, node, roles.w);
  const TensorDesc* y = find_role_tensor(graph, node, roles.y);
  if (!x || !w || !y || x->dims.size() < 3 || w->dims.size() != x->dims.size() ||
      y->dims.size() != x->dims.size() || w->dims[1] <= 0)
    return {};
  const auto spatial_product = [](const std::vector<std::int64_t>& dims) {
    return product_f(std::vector<std::int64_t>(dims.begin() + 2, dims.end()));
  };
  const double batch = static_cast<double>(x->dims[0]);
  const double filters = static_cast<double>(w->dims[0]);
  const double per_group = static_cast<double>(w->dims[1]);
  const double kernel = spatial_product(w->dims);
  const double out = spatial_product(y->dims);
  const std::int64_t groups = std::max<std::int64_t>(1, x->dims[1] / w->dims[1]);

  NodeCost cost;
  cost.flops = 2.0 * batch * filters * per_group * kernel * out;  // one multiply-add per MAC
  double length = 0;
  switch (node.kind) {
    case OpKind::conv_bwd_data:
      length = static_cast<double>(w->dims[0] / groups) * kernel;
      break;
    case OpKind::conv_bwd_weights:
      length = batch * out;
      break;
    default:
      length = per_group * kernel;
      break;
  }
  cost.reduction_length = static_cast<std::int64_t>(length);
  return cost;
}

// The keys of its settings object (reference/GRAPH-FORMAT.md).
constexpr std::string_view kConvSettings[] = {"conv_mode", "pre_padding", "post_padding", "stride",
                                              "dilation"};

}  // namespace

const OpRules kConvFwdRules{
    "ConvolutionFwdAttributes", OpKind::conv_fwd, parse_conv, validate_conv, cost_conv, kConvSettings};
const OpRules kConvBwdDataRules{
    "ConvolutionBwdAttributes", OpKind::conv_bwd_data, parse_conv, validate_conv, cost_conv, kConvSettings};
const OpRules kConvBwdWeightsRules{"ConvolutionWrwAttributes",
                                   OpKind::conv_bwd_weights,
                                   parse_conv,
                                   validate_conv,
                                   cost_conv,
                                   kConvSettings};

}  // namespace dnnbench
