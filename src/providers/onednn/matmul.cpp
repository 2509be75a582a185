// Matmul on oneDNN: [..., M, K] x [..., K, N] -> [..., M, N] with batch broadcast; ranks are
// equalized by prepending 1s, as oneDNN wants all three of one rank.
#include <algorithm>

#include "providers/onednn/dnnl_shim.hpp"
#include "providers/onednn/lowering.hpp"
#include "providers/provider.hpp"

namespace dnnbench::onednn {

Lowered lower_matmul(const AnchorContext& ctx) {
  check_compute_type(ctx);
  const auto& a = ctx.graph.tensor(ctx.input({"a"}));
  const auto& b = ctx.graph.tensor(ctx.input({"b"}));
  const auto& c = ctx.output_tensor(ctx.output({"c"}));
  const std::size_t rank = std::max({a.dims.size(), b.dims.size(), c.dims.size()});
  if (std::min({a.dims.size(), b.dims.size(), c.dims.size()}) < 2)
    throw Unsupported("oneDNN matmul takes matrices of rank 2 or more");

  struct View {
    std::vector<std::int64_t> dims, strides;
  };
  auto view = [rank](const TensorDesc& t) {
    View v{t.dims, t.strides};
    pad_to_rank(v.dims, v.strides, rank);
    return v;
  };
  const View av = view(a), bv = view(b), cv = view(c);
  const auto a_user = strided_md(av.dims, a.dtype, av.strides);
  const auto b_user = strided_md(bv.dims, b.dtype, bv.strides);
  const auto c_user = strided_md(cv.dims, c.dtype, cv.strides);
  const auto a_any = any_md(av.dims, a.dtype);
  const auto b_any = any_md(bv.dims, b.dtype);
  const auto c_any = any_md(cv.dims, c.dtype);

  Lowered low;
  low.primitive = "matmul";
  low.layout_knob = true;
  low.dst_dims = cv.dims;
  low.args = {tensor_arg(DNNL_ARG_SRC, "src", a, false, a_user),
              tensor_arg(DNNL_ARG_WEIGHTS, "wei", b, false, b_user),
              tensor_arg(DNNL_ARG_DST, "dst", c, true, c_user)};
  low.make_pd = [=](Layout layout, const dnnl::primitive_attr& attr) {
    const bool any = layout == Layout::any;
    const bool any_weights = layout != Layout::plain;
    const dnnl::matmul::desc desc(any ? a_any : a_user, any_weights ? b_any : b_user, any ? c_any : c_user);
    return make_pd_iterator(desc, attr);
  };
  return low;
}

}  // namespace dnnbench::onednn
