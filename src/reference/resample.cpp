// Resample (pooling) forward over 1 to 3 spatial dims, padded to three with leading unit dims.
// Window element j of output position o sits at input position o * stride - pre_padding + j.
//   MAXPOOL: max over the window's positions inside the input (padding never wins). A window
//     entirely in padding has no element; its max is -infinity (the max of an empty set).
//   AVGPOOL_INCLUDE_PADDING: sum over positions inside the input, divided by the number of window
//     positions inside the padded extent [-pre_padding, in + post_padding) (the window clipped to
//     the padded input, as PyTorch's count_include_pad does).
//   AVGPOOL_EXCLUDE_PADDING: sum divided by the number of positions inside the input (0 when none).
#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <vector>

#include "reference/node_io.hpp"
#include "reference/reference.hpp"
#include "tensor/parallel.hpp"

namespace dnnbench {
namespace {

constexpr int kSpatial = 3;
using Extents = std::array<std::int64_t, kSpatial>;

// Window positions [begin, end) of one output position along one dim, as input positions.
struct Span {
  std::int64_t begin, end;
  std::int64_t size() const { return std::max<std::int64_t>(0, end - begin); }
};

struct Window {
  Extents in{}, out{}, window{}, stride{}, pre{}, post{};
  // The window along dim d for output position o: clipped to the input, and to the padded input.
  Span valid(int d, std::int64_t o) const {
    const std::int64_t start = o * stride[d] - pre[d];
    return {std::max<std::int64_t>(start, 0), std::min(start + window[d], in[d])};
  }
  Span padded(int d, std::int64_t o) const {
    const std::int64_t start = o * stride[d] - pre[d];
    return {std::max(start, -pre[d]), std::min(start + window[d], in[d] + post[d])};
  }
};

Window make_window(const Node& node, const ResampleParams& p, const Dense& x, const Dense& y) {
  const std::size_t rank = x.dims.size();
  if (rank < 3 || rank > 2 + kSpatial || y.dims.size() != rank)
    ref::fail(node, "resample needs x and y of one rank between 3 and 5");
  if (y.dims[0] != x.dims[0] || y.dims[1] != x.dims[1])
    ref::fail(node, "y batch or channel count differs from x's");
  const std::size_t spatial = rank - 2, lead = kSpatial - spatial;
  if (p.window.size() != spatial) ref::fail(node, "window needs one entry per spatial dim");
  const auto stride = ref::spatial_setting(node, p.stride, spatial, 1, "stride");
  const auto pre = ref::spatial_setting(node, p.pre_padding, spatial, 0, "pre_padding");
  const auto post = ref::spatial_setting(node, p.post_padding, spatial, 0, "post_padding");
  Window w;
  for (int d = 0; d < kSpatial; ++d) {
    const bool real = static_cast<std::size_t>(d) >= lead;
    const std::size_t s = real ? d - lead : 0;
    w.in[d] = real ? x.dims[2 + s] : 1;
    w.out[d] = real ? y.dims[2 + s] : 1;
    w.window[d] = real ? p.window[s] : 1;
    w.stride[d] = real ? stride[s] : 1;
    w.pre[d] = real ? pre[s] : 0;
    w.post[d] = real ? post[s] : 0;
    if (w.window[d] < 1 || w.stride[d] < 1) ref::fail(node, "window and stride must be at least 1");
  }
  return w;
}

}  // namespace

void reference_resample(const Graph& graph, const Node& node, Values& values) {
  const auto& p = ref::params<ResampleParams>(node);
  const Dense& x = ref::input(graph, node, values, "x");
  Dense& y = ref::output(graph, node, values, "y");
  const Window w = make_window(node, p, x, y);
  const std::int64_t in_plane = w.in[0] * w.in[1] * w.in[2], out_plane = w.out[0] * w.out[1] * w.out[2];
  parallel_for(x.dims[0] * x.dims[1], [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t nc = begin; nc < end; ++nc) {
      const double* xs = x.data.data() + nc * in_plane;
      double* ys = y.data.data() + nc * out_plane;
      for (std::int64_t o0 = 0; o0 < w.out[0]; ++o0)
        for (std::int64_t o1 = 0; o1 < w.out[1]; ++o1)
          for (std::int64_t o2 = 0; o2 < w.out[2]; ++o2) {
            const Span s0 = w.valid(0, o0), s1 = w.valid(1, o1), s2 = w.valid(2, o2);
            double max = -std::numeric_limits<double>::infinity(), sum = 0;
            for (std::int64_t i0 = s0.begin; i0 < s0.end; ++i0)
              for (std::int64_t i1 = s1.begin; i1 < s1.end; ++i1)
                for (std::int64_t i2 = s2.begin; i2 < s2.end; ++i2) {
                  const double v = xs[(i0 * w.in[1] + i1) * w.in[2] + i2];
                  max = std::max(max, v);
                  sum += v;
                }
            double& out = ys[(o0 * w.out[1] + o1) * w.out[2] + o2];
            switch (p.mode) {
              case ResampleMode::maxpool:
                out = max;
                break;
              case ResampleMode::avgpool_include_padding: {
                const std::int64_t count =
                    w.padded(0, o0).size() * w.padded(1, o1).size() * w.padded(2, o2).size();
                out = count > 0 ? sum / static_cast<double>(count) : 0.0;
                break;
              }
              case ResampleMode::avgpool_exclude_padding: {
                const std::int64_t count = s0.size() * s1.size() * s2.size();
                out = count > 0 ? sum / static_cast<double>(count) : 0.0;
                break;
              }
            }
          }
    }
  });
}

}  // namespace dnnbench
