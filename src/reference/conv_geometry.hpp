#pragma once
// The geometry of one convolution node (batch, channels, groups, spatial extents padded to three
// dims, stride, padding, dilation), shared by the CPU reference (reference/conv.cpp) and the CUDA
// reference kernels (reference/cuda/), so both read a node's settings the same way.
#include <array>
#include <cstdint>
#include <vector>

#include "graph/graph.hpp"

namespace dnnbench::ref {

// Spatial dims after padding 1-D and 2-D convolutions with leading unit dims.
constexpr int kSpatial = 3;
using Extents = std::array<std::int64_t, kSpatial>;

// Output positions [begin, end) whose input position for one kernel tap lies inside the input.
struct Range {
  std::int64_t begin = 0, end = 0;
};

struct ConvGeometry {
  std::int64_t n = 0, c = 0, k = 0, groups = 1;  // batch, input channels, output channels
  Extents in{}, out{}, kernel{}, stride{}, pre{}, dilation{};
  std::array<std::vector<Range>, kSpatial> valid;  // per spatial dim, per kernel tap

  std::int64_t c_per_group() const { return c / groups; }
  std::int64_t k_per_group() const { return k / groups; }
  std::int64_t in_size() const { return in[0] * in[1] * in[2]; }
  std::int64_t out_size() const { return out[0] * out[1] * out[2]; }
  std::int64_t kernel_size() const { return kernel[0] * kernel[1] * kernel[2]; }
  // Input position of output position o and tap r along spatial dim d.
  std::int64_t input_pos(int d, std::int64_t o, std::int64_t r) const {
    return o * stride[d] - pre[d] + r * dilation[d];
  }
};

// x: [N, C, in...], w: [K, C/groups, kernel...], y: [N, K, out...] (logical dims); fails (naming
// the node) on ranks, channel counts or settings that do not fit together.
ConvGeometry conv_geometry(const Node& node, const ConvParams& p, const std::vector<std::int64_t>& x,
                           const std::vector<std::int64_t>& w, const std::vector<std::int64_t>& y);

}  // namespace dnnbench::ref
