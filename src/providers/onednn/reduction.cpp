// Reductions on oneDNN: the reduction primitive; reduced dims are 1 in the output.
#include "providers/onednn/dnnl_shim.hpp"
#include "providers/onednn/lowering.hpp"
#include "providers/provider.hpp"

namespace dnnbench::onednn {

namespace {

struct ReductionAlg {
  dnnl::algorithm alg;
  float p = 0;  // the norm's order for norm_lp_*
};

ReductionAlg reduction_alg(ReductionMode mode) {
  using alg = dnnl::algorithm;
  switch (mode) {
    case ReductionMode::add:
      return {alg::reduction_sum};
    case ReductionMode::mul:
      return {alg::reduction_mul};
    case ReductionMode::min:
      return {alg::reduction_min};
    case ReductionMode::max:
      return {alg::reduction_max};
    case ReductionMode::avg:
      return {alg::reduction_mean};
    case ReductionMode::norm1:
      return {alg::reduction_norm_lp_sum, 1.f};
    case ReductionMode::norm2:
      return {alg::reduction_norm_lp_sum, 2.f};
    case ReductionMode::amax:
    case ReductionMode::mul_no_zeros:
      break;
  }
  throw Unsupported("reduction mode " + std::string(reduction_mode_name(mode)) + " has no oneDNN algorithm");
}

}  // namespace

Lowered lower_reduction(const AnchorContext& ctx) {
  check_compute_type(ctx);
  const auto r = reduction_alg(ctx.node.as<ReductionParams>().mode);
  const auto& x = ctx.graph.tensor(ctx.input({"x", "in"}));
  const auto& y = ctx.output_tensor(ctx.output({"y", "out"}));
  if (x.dims.size() != y.dims.size())
    throw Unsupported("oneDNN reduction needs input and output of one rank");
  const auto x_md = user_md(x);
  const auto y_md = user_md(y);
  Lowered low;
  low.primitive = "reduction";
  low.dst_dims = y.dims;
  low.args = {tensor_arg(DNNL_ARG_SRC, "src", x, false, x_md),
              tensor_arg(DNNL_ARG_DST, "dst", y, true, y_md)};
  low.make_pd = [r, x_md, y_md](Layout, const dnnl::primitive_attr& attr) {
    // eps 0: the norms are plain norms, with no floor under the sum.
    const dnnl::reduction::desc desc(r.alg, x_md, y_md, r.p, 0.f);
    return make_pd_iterator(desc, attr);
  };
  return low;
}

}  // namespace dnnbench::onednn
