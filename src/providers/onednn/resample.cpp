// Resample (pooling) on oneDNN: pooling_v2 forward (inference: max pooling needs no workspace).
#include "providers/onednn/dnnl_shim.hpp"
#include "providers/onednn/lowering.hpp"
#include "providers/provider.hpp"

namespace dnnbench::onednn {

namespace {

dnnl::algorithm pooling_alg(ResampleMode mode) {
  switch (mode) {
    case ResampleMode::maxpool:
      return dnnl::algorithm::pooling_max;
    case ResampleMode::avgpool_include_padding:
      return dnnl::algorithm::pooling_avg_include_padding;
    case ResampleMode::avgpool_exclude_padding:
      return dnnl::algorithm::pooling_avg_exclude_padding;
  }
  throw Unsupported("resample mode has no oneDNN pooling algorithm");
}

}  // namespace

Lowered lower_resample(const AnchorContext& ctx) {
  check_compute_type(ctx);
  const auto& p = ctx.node.as<ResampleParams>();
  const auto alg = pooling_alg(p.mode);
  const auto& x = ctx.graph.tensor(ctx.input({"x"}));
  const auto& y = ctx.output_tensor(ctx.output({"y"}));
  const std::size_t spatial = x.dims.size() - 2;
  if (x.dims.size() < 3 || x.dims.size() > 5 || y.dims.size() != x.dims.size())
    throw Unsupported("oneDNN pooling takes 1 to 3 spatial dims");
  auto or_default = [spatial](const std::vector<std::int64_t>& v, std::int64_t fallback) {
    return v.empty() ? std::vector<std::int64_t>(spatial, fallback) : v;
  };
  const auto window = p.window;
  const auto strides = or_default(p.stride, 1);
  const auto pad_l = or_default(p.pre_padding, 0);
  const auto pad_r = or_default(p.post_padding, 0);
  for (const auto* v : {&window, &strides, &pad_l, &pad_r})
    if (v->size() != spatial) throw Unsupported("resample settings do not match its spatial dims");
  const std::vector<std::int64_t> dilation(spatial, 0);  // oneDNN counts skipped elements: none
  const auto x_md = user_md(x);
  const auto y_md = user_md(y);
  Lowered low;
  low.primitive = "pooling_v2_forward";
  low.dst_dims = y.dims;
  low.args = {tensor_arg(DNNL_ARG_SRC, "src", x, false, x_md),
              tensor_arg(DNNL_ARG_DST, "dst", y, true, y_md)};
  low.make_pd = [=](Layout, const dnnl::primitive_attr& attr) {
    const dnnl::pooling_v2_forward::desc desc(dnnl::prop_kind::forward_inference, alg, x_md, y_md, strides,
                                              window, dilation, pad_l, pad_r);
    return make_pd_iterator(desc, attr);
  };
  return low;
}

}  // namespace dnnbench::onednn
