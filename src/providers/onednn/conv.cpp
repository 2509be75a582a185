// Convolutions on oneDNN: forward, backward data and backward weights, grouped or not, any
// strides. Backward primitives take a forward primitive descriptor as a hint.
#include "providers/onednn/dnnl_shim.hpp"
#include "providers/onednn/lowering.hpp"
#include "providers/provider.hpp"

namespace dnnbench::onednn {

namespace {

using dims_t = std::vector<std::int64_t>;

struct ConvGeometry {
  dims_t strides, dilates, padding_l, padding_r;  // oneDNN dilation counts skipped elements: d - 1
  std::int64_t groups = 1;
};

dims_t or_default(const dims_t& values, std::size_t n, std::int64_t fallback) {
  return values.empty() ? dims_t(n, fallback) : values;
}

ConvGeometry geometry(const ConvParams& p, std::size_t spatial, std::int64_t channels,
                      std::int64_t w_channels) {
  ConvGeometry g;
  g.strides = or_default(p.stride, spatial, 1);
  g.dilates = or_default(p.dilation, spatial, 1);
  for (auto& d : g.dilates) d -= 1;
  g.padding_l = or_default(p.pre_padding, spatial, 0);
  g.padding_r = or_default(p.post_padding, spatial, 0);
  for (const dims_t* v : {&g.strides, &g.dilates, &g.padding_l, &g.padding_r})
    if (v->size() != spatial)
      throw Unsupported("convolution settings do not match its " + std::to_string(spatial) + " spatial dims");
  if (w_channels <= 0 || channels % w_channels != 0)
    throw Unsupported("convolution channels " + std::to_string(channels) +
                      " are not a multiple of the filter's " + std::to_string(w_channels));
  g.groups = p.groups > 1 ? p.groups : channels / w_channels;
  return g;
}

// Filter [K, C/g, k...] seen as oneDNN's grouped [g, K/g, C/g, k...] over the same storage.
void group_filter(dims_t& dims, dims_t& strides, std::int64_t groups) {
  if (groups == 1) return;
  if (dims[0] % groups != 0) throw Unsupported("filter count is not a multiple of the group count");
  const std::int64_t per_group = dims[0] / groups;
  dims[0] = per_group;
  dims.insert(dims.begin(), groups);
  strides.insert(strides.begin(), strides[0] * per_group);
}

}  // namespace

Lowered lower_conv(const AnchorContext& ctx) {
  check_compute_type(ctx);
  const auto& params = ctx.node.as<ConvParams>();
  if (!params.cross_correlation)
    throw Unsupported("conv_mode CONVOLUTION (flipped filter): oneDNN computes cross-correlation only");
  const OpKind kind = ctx.node.kind;

  // x: the data tensor (src / diff_src), w: filter (weights / diff_weights), y: (diff_)dst.
  std::int64_t x_uid = 0, w_uid = 0, y_uid = 0;
  if (kind == OpKind::conv_fwd) {
    x_uid = ctx.input({"x"}), w_uid = ctx.input({"w"}), y_uid = ctx.output({"y"});
  } else if (kind == OpKind::conv_bwd_data) {
    y_uid = ctx.input({"dy"}), w_uid = ctx.input({"w"}), x_uid = ctx.output({"dx"});
  } else {
    x_uid = ctx.input({"x"}), y_uid = ctx.input({"dy"}), w_uid = ctx.output({"dw"});
  }
  const auto& x = kind == OpKind::conv_bwd_data ? ctx.output_tensor(x_uid) : ctx.graph.tensor(x_uid);
  const auto& w = kind == OpKind::conv_bwd_weights ? ctx.output_tensor(w_uid) : ctx.graph.tensor(w_uid);
  const auto& y = kind == OpKind::conv_fwd ? ctx.output_tensor(y_uid) : ctx.graph.tensor(y_uid);
  if (x.dims.size() < 3 || x.dims.size() > 5 || w.dims.size() != x.dims.size() ||
      y.dims.size() != x.dims.size())
    throw Unsupported("oneDNN convolutions take 1 to 3 spatial dims with x, w, y of one rank");
  const ConvGeometry g = geometry(params, x.dims.size() - 2, x.dims[1], w.dims[1]);

  dims_t w_dims = w.dims, w_strides = w.strides;
  group_filter(w_dims, w_strides, g.groups);
  const auto x_user = user_md(x);
  const auto w_user = strided_md(w_dims, w.dtype, w_strides);
  const auto y_user = user_md(y);
  const auto x_any = any_md(x.dims, x.dtype);
  const auto w_any = any_md(w_dims, w.dtype);
  const auto y_any = any_md(y.dims, y.dtype);

  Lowered low;
  low.layout_knob = true;
  if (kind == OpKind::conv_fwd) {
    low.primitive = "convolution_forward";
    low.dst_dims = y.dims;
    low.args = {tensor_arg(DNNL_ARG_SRC, "src", x, false, x_user),
                tensor_arg(DNNL_ARG_WEIGHTS, "wei", w, false, w_user),
                tensor_arg(DNNL_ARG_DST, "dst", y, true, y_user)};
  } else if (kind == OpKind::conv_bwd_data) {
    low.primitive = "convolution_backward_data";
    low.dst_dims = x.dims;
    low.args = {tensor_arg(DNNL_ARG_DIFF_DST, "diff_dst", y, false, y_user),
                tensor_arg(DNNL_ARG_WEIGHTS, "wei", w, false, w_user),
                tensor_arg(DNNL_ARG_DIFF_SRC, "diff_src", x, true, x_user)};
  } else {
    low.primitive = "convolution_backward_weights";
    low.dst_dims = w.dims;
    low.args = {tensor_arg(DNNL_ARG_SRC, "src", x, false, x_user),
                tensor_arg(DNNL_ARG_DIFF_DST, "diff_dst", y, false, y_user),
                tensor_arg(DNNL_ARG_DIFF_WEIGHTS, "diff_wei", w, true, w_user)};
  }

  low.make_pd = [=](Layout layout, const dnnl::primitive_attr& attr) {
    const bool any = layout == Layout::any;
    const bool any_weights = layout != Layout::plain;
    const auto& src = any ? x_any : x_user;
    const auto& wei = any_weights ? w_any : w_user;
    const auto& dst = any ? y_any : y_user;
    const auto alg = dnnl::algorithm::convolution_direct;
    if (kind == OpKind::conv_fwd) {
      const dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, alg, src, wei, dst,
                                                 g.strides, g.dilates, g.padding_l, g.padding_r);
      return make_pd_iterator(desc, attr);
    }
    // The backward primitives want the forward primitive they would follow, as a hint.
    const dnnl::convolution_forward::desc fwd(dnnl::prop_kind::forward_training, alg, src, wei, dst,
                                              g.strides, g.dilates, g.padding_l, g.padding_r);
    auto hint = std::make_shared<const PdIterator>(make_pd_iterator(fwd, dnnl::primitive_attr()));
    if (!*hint) return PdIterator{};
    if (kind == OpKind::conv_bwd_data) {
      const dnnl::convolution_backward_data::desc desc(alg, src, wei, dst, g.strides, g.dilates, g.padding_l,
                                                       g.padding_r);
      return make_pd_iterator(desc, attr, hint);
    }
    const dnnl::convolution_backward_weights::desc desc(alg, src, wei, dst, g.strides, g.dilates, g.padding_l,
                                                        g.padding_r);
    return make_pd_iterator(desc, attr, hint);
  };
  return low;
}

}  // namespace dnnbench::onednn
