// Normalizations on oneDNN: batch normalization inference with global statistics and layer
// normalization (inference and training). oneDNN keeps variance where the graph keeps
// inv_variance = 1 / sqrt(variance + epsilon); the arguments convert between them.
#include "providers/onednn/dnnl_shim.hpp"
#include "providers/onednn/lowering.hpp"
#include "providers/provider.hpp"
#include "tensor/dense.hpp"

namespace dnnbench::onednn {

namespace {

using dims_t = std::vector<std::int64_t>;

// A per-channel tensor ([1, C, 1, 1] or [C]) seen as oneDNN's 1-D [C] over the same storage.
dnnl::memory::desc channel_md(const TensorDesc& t, std::int64_t channels) {
  if (t.element_count() != channels)
    throw Unsupported("'" + t.name + "' should hold one value per channel (" + std::to_string(channels) +
                      ")");
  std::int64_t stride = 1;
  for (std::size_t k = 0; k < t.dims.size(); ++k)
    if (t.dims[k] == channels && channels > 1) stride = t.strides[k];
  return strided_md({channels}, t.dtype, {stride});
}

// The last `k` dims folded into one when their storage is dense; Unsupported otherwise.
void collapse_tail(dims_t& dims, dims_t& strides, std::size_t k, const std::string& name) {
  if (k > dims.size()) throw Unsupported("'" + name + "' has fewer dims than normalized_dim_count");
  const std::size_t first = dims.size() - k;
  std::int64_t size = 1;
  for (std::size_t i = first; i < dims.size(); ++i) {
    if (i + 1 < dims.size() && dims[i] > 1 && strides[i] != strides[i + 1] * dims[i + 1])
      throw Unsupported("the normalized dims of '" + name + "' are not dense; oneDNN normalizes one dim");
    size *= dims[i];
  }
  const std::int64_t inner = strides.back();
  dims.resize(first);
  strides.resize(first);
  dims.push_back(size);
  strides.push_back(inner);
}

}  // namespace

Lowered lower_batchnorm(const AnchorContext& ctx) {
  check_compute_type(ctx);
  const bool ext = ctx.node.as<BatchnormParams>().variance_ext;
  const auto& g = ctx.graph;
  const auto& x = g.tensor(ctx.input({"x"}));
  const auto& y = ctx.output_tensor(ctx.output({"y"}));
  const auto& mean = g.tensor(ctx.input({"mean"}));
  const auto& var = g.tensor(ext ? ctx.input({"variance"}) : ctx.input({"inv_variance"}));
  const auto scale_uid = ctx.optional_input({"scale"});
  const auto bias_uid = ctx.optional_input({"bias"});
  // The inv_variance form folds epsilon into its input: the primitive gets variance and epsilon 0.
  const float epsilon = ext ? static_cast<float>(ctx.scalar(ctx.input({"epsilon"}))) : 0.f;
  if (x.dims.size() < 2) throw Unsupported("batch normalization needs a channel dim");
  const std::int64_t channels = x.dims[1];

  const auto x_md = user_md(x);
  const auto y_md = user_md(y);
  if (x_md != y_md) throw Unsupported("oneDNN 2.x batch normalization needs y in x's layout and data type");

  Lowered low;
  low.primitive = "batch_normalization_forward";
  low.dst_dims = y.dims;
  low.args = {tensor_arg(DNNL_ARG_SRC, "src", x, false, x_md), tensor_arg(DNNL_ARG_DST, "dst", y, true, y_md),
              tensor_arg(DNNL_ARG_MEAN, "mean", mean, false, channel_md(mean, channels)),
              tensor_arg(DNNL_ARG_VARIANCE, "variance", var, false, channel_md(var, channels))};
  if (!ext) low.args.back().transfer = Transfer::inv_variance_to_variance;
  auto flags = dnnl::normalization_flags::use_global_stats;
  if (scale_uid) {
    flags |= dnnl::normalization_flags::use_scale;
    const auto& s = g.tensor(*scale_uid);
    low.args.push_back(tensor_arg(DNNL_ARG_SCALE, "scale", s, false, channel_md(s, channels)));
  }
  if (bias_uid) {
    flags |= dnnl::normalization_flags::use_shift;
    const auto& b = g.tensor(*bias_uid);
    low.args.push_back(tensor_arg(DNNL_ARG_SHIFT, "shift", b, false, channel_md(b, channels)));
  }
  for (std::size_t i = 2; i < low.args.size(); ++i) low.args[i].show_layout = false;
  low.make_pd = [x_md, epsilon, flags](Layout, const dnnl::primitive_attr& attr) {
    const dnnl::batch_normalization_forward::desc desc(dnnl::prop_kind::forward_inference, x_md, epsilon,
                                                       flags);
    return make_pd_iterator(desc, attr);
  };
  return low;
}

Lowered lower_layernorm(const AnchorContext& ctx) {
  check_compute_type(ctx);
  const auto& params = ctx.node.as<LayernormParams>();
  const auto& g = ctx.graph;
  const auto& x = g.tensor(ctx.input({"x"}));
  const auto& y = ctx.output_tensor(ctx.output({"y"}));
  const double epsilon_value = ctx.scalar(ctx.input({"epsilon"}));
  const auto epsilon = static_cast<float>(epsilon_value);
  const auto k = static_cast<std::size_t>(params.normalized_dim_count);
  if (k < 1 || k > x.dims.size()) throw Unsupported("normalized_dim_count out of range");
  if (y.dims != x.dims) throw Unsupported("layer normalization output shape differs from its input");

  // x and y as [outer..., D] with D the normalized dims folded; oneDNN wants rank 2 or more.
  auto fold = [&](const TensorDesc& t) {
    dims_t dims = t.dims, strides = t.strides;
    collapse_tail(dims, strides, k, t.name);
    pad_to_rank(dims, strides, 2);
    return strided_md(dims, t.dtype, strides);
  };
  const auto x_md = fold(x);
  const auto y_md = fold(y);
  if (x_md != y_md) throw Unsupported("oneDNN 2.x layer normalization needs y in x's layout and data type");
  const dims_t data_dims = x_md.dims();
  const dims_t stat_dims(data_dims.begin(), data_dims.end() - 1);
  const std::int64_t normalized = data_dims.back();
  // Statistics as oneDNN keeps them: dense fp32 over the outer dims.
  const auto stat_md = strided_md(stat_dims, DataType::f32, c_order_strides(stat_dims));
  // A statistics tensor (x's dims with 1s where normalized) seen as the stat dims.
  auto stat_view = [&](const TensorDesc& t) {
    dims_t strides(t.strides.begin(), t.strides.begin() + static_cast<std::ptrdiff_t>(
                                                              std::min(t.strides.size(), x.dims.size() - k)));
    if (t.element_count() != product(stat_dims) || strides.size() != x.dims.size() - k)
      throw Unsupported("statistics tensor '" + t.name + "' does not match x's outer dims");
    dims_t dims(stat_dims.end() - static_cast<std::ptrdiff_t>(strides.size()), stat_dims.end());
    pad_to_rank(dims, strides, stat_dims.size());
    return strided_md(dims, t.dtype, strides);
  };
  // scale / bias: D values over the normalized dims.
  auto weight_view = [&](const TensorDesc& t) {
    if (t.element_count() != normalized)
      throw Unsupported("'" + t.name + "' should hold one value per normalized element");
    dims_t dims = t.dims, strides = t.strides;
    collapse_tail(dims, strides, std::min(k, dims.size()), t.name);
    return strided_md({normalized}, t.dtype, {strides.back()});
  };

  const bool training = params.phase == NormPhase::training;
  Lowered low;
  low.primitive = "layer_normalization_forward";
  low.dst_dims = data_dims;
  low.args = {tensor_arg(DNNL_ARG_SRC, "src", x, false, x_md),
              tensor_arg(DNNL_ARG_DST, "dst", y, true, y_md)};
  auto flags = dnnl::normalization_flags::none;
  if (auto uid = ctx.optional_input({"scale"})) {
    flags |= dnnl::normalization_flags::use_scale;
    low.args.push_back(
        tensor_arg(DNNL_ARG_SCALE, "scale", g.tensor(*uid), false, weight_view(g.tensor(*uid))));
    low.args.back().show_layout = false;
  }
  if (auto uid = ctx.optional_input({"bias"})) {
    flags |= dnnl::normalization_flags::use_shift;
    low.args.push_back(
        tensor_arg(DNNL_ARG_SHIFT, "shift", g.tensor(*uid), false, weight_view(g.tensor(*uid))));
    low.args.back().show_layout = false;
  }
  if (training) {
    // Training computes the statistics and must have somewhere to put them, wanted or not.
    auto stat_arg = [&](int arg, const std::string& label, std::optional<std::int64_t> uid) {
      ArgSpec spec;
      if (uid && !g.tensor(*uid).is_virtual) {
        spec = tensor_arg(arg, label, g.tensor(*uid), true, stat_view(g.tensor(*uid)));
      } else {
        spec.arg = arg;
        spec.label = label;
        spec.output = true;
        spec.dtype = DataType::f32;
        spec.md = stat_md;
        spec.transfer = Transfer::discard;
      }
      spec.show_layout = false;
      return spec;
    };
    low.args.push_back(stat_arg(DNNL_ARG_MEAN, "mean", ctx.optional_output({"mean"})));
    low.args.push_back(stat_arg(DNNL_ARG_VARIANCE, "variance", ctx.optional_output({"inv_variance"})));
    if (low.args.back().transfer == Transfer::direct) {
      low.args.back().transfer = Transfer::variance_to_inv_variance;
      low.args.back().epsilon = epsilon_value;
    }
  }
  const auto prop = training ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference;
  low.make_pd = [x_md, stat_md, epsilon, flags, prop](Layout, const dnnl::primitive_attr& attr) {
    const dnnl::layer_normalization_forward::desc desc(prop, x_md, stat_md, epsilon, flags);
    return make_pd_iterator(desc, attr);
  };
  return low;
}

}  // namespace dnnbench::onednn
