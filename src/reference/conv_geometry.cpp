#include "reference/conv_geometry.hpp"

#include <algorithm>
#include <string>

#include "reference/node_io.hpp"

namespace dnnbench::ref {
namespace {

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}
std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return -floor_div(-a, b);
}

}  // namespace

ConvGeometry conv_geometry(const Node& node, const ConvParams& p, const std::vector<std::int64_t>& x,
                           const std::vector<std::int64_t>& w, const std::vector<std::int64_t>& y) {
  const std::size_t rank = x.size();
  if (rank < 3 || rank > 2 + kSpatial || w.size() != rank || y.size() != rank)
    fail(node, "convolution needs x, w and y of one rank between 3 and 5");
  const std::size_t spatial = rank - 2;
  ConvGeometry g;
  g.n = x[0];
  g.c = x[1];
  g.k = w[0];
  if (w[1] <= 0 || g.c % w[1] != 0)
    fail(node, "input channels " + std::to_string(g.c) + " are not a multiple of filter channels " +
                   std::to_string(w[1]));
  g.groups = g.c / w[1];
  if (g.k % g.groups != 0)
    fail(node, "output channels " + std::to_string(g.k) + " are not a multiple of groups " +
                   std::to_string(g.groups));
  if (y[0] != g.n || y[1] != g.k) fail(node, "output batch or channel count disagrees with x and w");
  const auto pre = spatial_setting(node, p.pre_padding, spatial, 0, "pre_padding");
  const auto stride = spatial_setting(node, p.stride, spatial, 1, "stride");
  const auto dilation = spatial_setting(node, p.dilation, spatial, 1, "dilation");
  const std::size_t lead = kSpatial - spatial;
  for (int d = 0; d < kSpatial; ++d) {
    const bool real = static_cast<std::size_t>(d) >= lead;
    const std::size_t s = real ? d - lead : 0;
    g.in[d] = real ? x[2 + s] : 1;
    g.out[d] = real ? y[2 + s] : 1;
    g.kernel[d] = real ? w[2 + s] : 1;
    g.stride[d] = real ? stride[s] : 1;
    g.pre[d] = real ? pre[s] : 0;
    g.dilation[d] = real ? dilation[s] : 1;
    if (g.stride[d] < 1 || g.dilation[d] < 1) fail(node, "stride and dilation must be at least 1");
  }
  for (int d = 0; d < kSpatial; ++d) {
    g.valid[d].resize(static_cast<std::size_t>(g.kernel[d]));
    for (std::int64_t r = 0; r < g.kernel[d]; ++r) {
      const std::int64_t shift = g.pre[d] - r * g.dilation[d];  // i = o * stride - shift
      Range range{std::max<std::int64_t>(0, ceil_div(shift, g.stride[d])),
                  std::min<std::int64_t>(g.out[d], floor_div(g.in[d] - 1 + shift, g.stride[d]) + 1)};
      if (range.end < range.begin) range.end = range.begin;
      g.valid[d][static_cast<std::size_t>(r)] = range;
    }
  }
  return g;
}

}  // namespace dnnbench::ref
