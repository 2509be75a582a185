// Convolution forward, backward data and backward weights: direct loops over N-d spatial dims
// (1 to 3), accumulating in fp64. Spatial dims are padded with leading unit dims to three so one
// implementation serves 1-D, 2-D and 3-D. Each innermost loop runs over the last spatial dim with
// its valid range precomputed per kernel tap, so no element pays a bounds check.
//
// Index relation shared by all three: input position i = o * stride - pre_padding + r * dilation
// for output position o and kernel tap r. Backward data and backward weights are the exact
// adjoints of forward with respect to x and w.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "reference/conv_geometry.hpp"
#include "reference/node_io.hpp"
#include "reference/reference.hpp"
#include "tensor/parallel.hpp"

namespace dnnbench {
namespace {

using ref::ConvGeometry;
using ref::kSpatial;
using ref::Range;
using Geometry = ConvGeometry;

const Range& valid(const Geometry& g, int d, std::int64_t r) {
  return g.valid[d][static_cast<std::size_t>(r)];
}
bool inside(const Range& range, std::int64_t o) {
  return o >= range.begin && o < range.end;
}

// CONVOLUTION mode is cross-correlation with the filter reversed along every spatial dim.
Dense flipped(const Dense& w, const Geometry& g) {
  Dense f(w.dims);
  const std::int64_t taps = g.kernel_size(), filters = w.size() / std::max<std::int64_t>(taps, 1);
  for (std::int64_t f_index = 0; f_index < filters; ++f_index)
    for (std::int64_t t = 0; t < taps; ++t)
      f.data[f_index * taps + (taps - 1 - t)] = w.data[f_index * taps + t];
  return f;
}

// Channels of one group computed together (output channels in forward, input channels in
// backward data): each element loaded from the shared row feeds four FMAs.
constexpr std::int64_t kChannelBlock = 4;

// rows[j][row_offset + o * row_stride] += wv[j] * src[o * src_stride] for the `count` rows j and
// positions o in [lo, hi).
void add_rows(double* const* rows, std::int64_t row_offset, std::int64_t row_stride, const double* wv,
              std::int64_t count, const double* src, std::int64_t src_stride, std::int64_t lo,
              std::int64_t hi) {
  if (count == kChannelBlock && row_stride == 1 && src_stride == 1) {
    double* __restrict y0 = rows[0] + row_offset;
    double* __restrict y1 = rows[1] + row_offset;
    double* __restrict y2 = rows[2] + row_offset;
    double* __restrict y3 = rows[3] + row_offset;
    const double* __restrict x = src;
    const double w0 = wv[0], w1 = wv[1], w2 = wv[2], w3 = wv[3];
    for (std::int64_t o = lo; o < hi; ++o) {
      const double xv = x[o];
      y0[o] += w0 * xv;
      y1[o] += w1 * xv;
      y2[o] += w2 * xv;
      y3[o] += w3 * xv;
    }
    return;
  }
  for (std::int64_t j = 0; j < count; ++j) {
    double* __restrict row = rows[j] + row_offset;
    const double w_j = wv[j];
    for (std::int64_t o = lo; o < hi; ++o) row[o * row_stride] += w_j * src[o * src_stride];
  }
}

// Channel blocks of a group: block b covers channels [first(b), first(b) + size(b)).
struct ChannelBlocks {
  std::int64_t per_group, channels_per_group;
  explicit ChannelBlocks(std::int64_t channels_per_group_)
      : per_group((channels_per_group_ + kChannelBlock - 1) / kChannelBlock),
        channels_per_group(channels_per_group_) {}
  std::int64_t group(std::int64_t block) const { return block / per_group; }
  std::int64_t first(std::int64_t block) const {
    return group(block) * channels_per_group + block % per_group * kChannelBlock;
  }
  std::int64_t size(std::int64_t block) const {
    return std::min(kChannelBlock, (group(block) + 1) * channels_per_group - first(block));
  }
};

// Forward: one task per output row (n, o0, o1) of a block of up to kChannelBlock output
// channels of one group; the innermost loop runs along the rows.
void forward(const Geometry& g, const double* x, const double* w, double* y) {
  const std::int64_t cg = g.c_per_group(), kg = g.k_per_group(), in_size = g.in_size(),
                     taps = g.kernel_size();
  const ChannelBlocks blocks(kg);
  const std::int64_t block_count = g.groups * blocks.per_group, plane_rows = g.out[0] * g.out[1];
  parallel_for(g.n * block_count * plane_rows, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t task = begin; task < end; ++task) {
      const std::int64_t o1 = task % g.out[1], o0 = task / g.out[1] % g.out[0];
      const std::int64_t block = task / plane_rows % block_count, n = task / (plane_rows * block_count);
      const std::int64_t group = blocks.group(block), k0 = blocks.first(block), count = blocks.size(block);
      double* rows[kChannelBlock];
      for (std::int64_t j = 0; j < count; ++j)
        rows[j] = y + (((n * g.k + k0 + j) * g.out[0] + o0) * g.out[1] + o1) * g.out[2];
      for (std::int64_t c = 0; c < cg; ++c) {
        const double* x_plane = x + (n * g.c + group * cg + c) * in_size;
        for (std::int64_t r0 = 0; r0 < g.kernel[0]; ++r0) {
          if (!inside(valid(g, 0, r0), o0)) continue;
          const std::int64_t i0 = g.input_pos(0, o0, r0);
          for (std::int64_t r1 = 0; r1 < g.kernel[1]; ++r1) {
            if (!inside(valid(g, 1, r1), o1)) continue;
            const double* x_row = x_plane + (i0 * g.in[1] + g.input_pos(1, o1, r1)) * g.in[2];
            for (std::int64_t r2 = 0; r2 < g.kernel[2]; ++r2) {
              const std::int64_t tap = (r0 * g.kernel[1] + r1) * g.kernel[2] + r2;
              double wv[kChannelBlock];
              for (std::int64_t j = 0; j < count; ++j) wv[j] = w[((k0 + j) * cg + c) * taps + tap];
              const auto [lo, hi] = valid(g, 2, r2);
              add_rows(rows, 0, 1, wv, count, x_row + g.input_pos(2, 0, r2), g.stride[2], lo, hi);
            }
          }
        }
      }
    }
  });
}

// Backward data: one task per dx row (n, i0, i1) of a block of up to kChannelBlock input
// channels of one group; taps whose output position is not an integer inside dy are skipped, then
// the dy row is scattered along the last dim.
void backward_data(const Geometry& g, const double* dy, const double* w, double* dx) {
  const std::int64_t cg = g.c_per_group(), kg = g.k_per_group(), out_size = g.out_size(),
                     taps = g.kernel_size();
  const ChannelBlocks blocks(cg);
  const std::int64_t block_count = g.groups * blocks.per_group, plane_rows = g.in[0] * g.in[1];
  // Output position o with input_pos(d, o, r) == i, or -1 when there is none.
  auto output_pos = [&](int d, std::int64_t i, std::int64_t r) -> std::int64_t {
    const std::int64_t t = i + g.pre[d] - r * g.dilation[d];
    if (t < 0 || t % g.stride[d] != 0 || t / g.stride[d] >= g.out[d]) return -1;
    return t / g.stride[d];
  };
  parallel_for(g.n * block_count * plane_rows, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t task = begin; task < end; ++task) {
      const std::int64_t i1 = task % g.in[1], i0 = task / g.in[1] % g.in[0];
      const std::int64_t block = task / plane_rows % block_count, n = task / (plane_rows * block_count);
      const std::int64_t group = blocks.group(block), c0 = blocks.first(block), count = blocks.size(block);
      double* rows[kChannelBlock];
      for (std::int64_t j = 0; j < count; ++j)
        rows[j] = dx + (((n * g.c + c0 + j) * g.in[0] + i0) * g.in[1] + i1) * g.in[2];
      for (std::int64_t kk = 0; kk < kg; ++kk) {
        const std::int64_t k = group * kg + kk;
        const double* dy_plane = dy + (n * g.k + k) * out_size;
        for (std::int64_t r0 = 0; r0 < g.kernel[0]; ++r0) {
          const std::int64_t o0 = output_pos(0, i0, r0);
          if (o0 < 0) continue;
          for (std::int64_t r1 = 0; r1 < g.kernel[1]; ++r1) {
            const std::int64_t o1 = output_pos(1, i1, r1);
            if (o1 < 0) continue;
            const double* dy_row = dy_plane + (o0 * g.out[1] + o1) * g.out[2];
            for (std::int64_t r2 = 0; r2 < g.kernel[2]; ++r2) {
              const std::int64_t tap = (r0 * g.kernel[1] + r1) * g.kernel[2] + r2;
              double wv[kChannelBlock];
              for (std::int64_t j = 0; j < count; ++j)
                wv[j] = w[(k * cg + (c0 - group * cg) + j) * taps + tap];
              const auto [lo, hi] = valid(g, 2, r2);
              add_rows(rows, g.input_pos(2, 0, r2), g.stride[2], wv, count, dy_row, 1, lo, hi);
            }
          }
        }
      }
    }
  });
}

// Dot product with four partial sums so the compiler can vectorise without reassociation flags.
double dot(const double* __restrict a, const double* __restrict b, std::int64_t b_stride, std::int64_t n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::int64_t j = 0;
  if (b_stride == 1) {
    for (; j + 4 <= n; j += 4) {
      s0 += a[j] * b[j];
      s1 += a[j + 1] * b[j + 1];
      s2 += a[j + 2] * b[j + 2];
      s3 += a[j + 3] * b[j + 3];
    }
  }
  for (; j < n; ++j) s0 += a[j] * b[j * b_stride];
  return (s0 + s1) + (s2 + s3);
}

// Backward weights: one task per filter (k, c); its taps sum over batch and output positions.
void backward_weights(const Geometry& g, const double* x, const double* dy, double* dw) {
  const std::int64_t cg = g.c_per_group(), kg = g.k_per_group();
  const std::int64_t in_size = g.in_size(), out_size = g.out_size(), taps = g.kernel_size();
  parallel_for(g.k * cg, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t filter = begin; filter < end; ++filter) {
      const std::int64_t k = filter / cg, c = (k / kg) * cg + filter % cg;
      double* dw_filter = dw + filter * taps;
      for (std::int64_t n = 0; n < g.n; ++n) {
        const double* x_plane = x + (n * g.c + c) * in_size;
        const double* dy_plane = dy + (n * g.k + k) * out_size;
        for (std::int64_t r0 = 0; r0 < g.kernel[0]; ++r0) {
          const auto [lo0, hi0] = valid(g, 0, r0);
          for (std::int64_t r1 = 0; r1 < g.kernel[1]; ++r1) {
            const auto [lo1, hi1] = valid(g, 1, r1);
            double* dw_taps = dw_filter + (r0 * g.kernel[1] + r1) * g.kernel[2];
            for (std::int64_t o0 = lo0; o0 < hi0; ++o0) {
              const std::int64_t i0 = g.input_pos(0, o0, r0);
              for (std::int64_t o1 = lo1; o1 < hi1; ++o1) {
                const double* dy_row = dy_plane + (o0 * g.out[1] + o1) * g.out[2];
                const double* x_row = x_plane + (i0 * g.in[1] + g.input_pos(1, o1, r1)) * g.in[2];
                for (std::int64_t r2 = 0; r2 < g.kernel[2]; ++r2) {
                  const auto [lo, hi] = valid(g, 2, r2);
                  if (hi <= lo) continue;
                  dw_taps[r2] += dot(dy_row + lo, x_row + g.input_pos(2, lo, r2), g.stride[2], hi - lo);
                }
              }
            }
          }
        }
      }
    }
  });
}

}  // namespace

void reference_conv(const Graph& graph, const Node& node, Values& values) {
  const auto& p = ref::params<ConvParams>(node);
  switch (node.kind) {
    case OpKind::conv_fwd: {
      const Dense& x = ref::input(graph, node, values, "x");
      const Dense& w = ref::input(graph, node, values, "w");
      Dense& y = ref::output(graph, node, values, "y");
      const Geometry g = ref::conv_geometry(node, p, x.dims, w.dims, y.dims);
      if (p.cross_correlation) {
        forward(g, x.data.data(), w.data.data(), y.data.data());
      } else {
        forward(g, x.data.data(), flipped(w, g).data.data(), y.data.data());
      }
      return;
    }
    case OpKind::conv_bwd_data: {
      const Dense& dy = ref::input(graph, node, values, "dy");
      const Dense& w = ref::input(graph, node, values, "w");
      Dense& dx = ref::output(graph, node, values, "dx");
      const Geometry g = ref::conv_geometry(node, p, dx.dims, w.dims, dy.dims);
      if (p.cross_correlation) {
        backward_data(g, dy.data.data(), w.data.data(), dx.data.data());
      } else {
        backward_data(g, dy.data.data(), flipped(w, g).data.data(), dx.data.data());
      }
      return;
    }
    case OpKind::conv_bwd_weights: {
      const Dense& x = ref::input(graph, node, values, "x");
      const Dense& dy = ref::input(graph, node, values, "dy");
      Dense& dw = ref::output(graph, node, values, "dw");
      const Geometry g = ref::conv_geometry(node, p, x.dims, dw.dims, dy.dims);
      backward_weights(g, x.data.data(), dy.data.data(), dw.data.data());
      if (!p.cross_correlation) dw = flipped(dw, g);
      return;
    }
    default:
      ref::fail(node, "not a convolution");
  }
}

}  // namespace dnnbench
