// Convolution reference: hand-computed cases, a naive direct formula, the adjoint identities of
// backward data and backward weights, 1x1 convolution as a matmul, and thread-count invariance.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "reference_test_support.hpp"

namespace dnnbench::testing {
namespace {

struct ConvCase {
  std::string name;
  std::vector<std::int64_t> x_dims;  // N, C, spatial...
  std::int64_t k = 1, groups = 1;
  std::vector<std::int64_t> kernel, pre, post, stride, dilation;
  bool cross_correlation = true;

  std::size_t spatial() const { return kernel.size(); }
  std::vector<std::int64_t> w_dims() const {
    std::vector<std::int64_t> d{k, x_dims[1] / groups};
    d.insert(d.end(), kernel.begin(), kernel.end());
    return d;
  }
  std::vector<std::int64_t> y_dims() const {
    std::vector<std::int64_t> d{x_dims[0], k};
    for (std::size_t s = 0; s < spatial(); ++s)
      d.push_back((x_dims[2 + s] + pre[s] + post[s] - dilation[s] * (kernel[s] - 1) - 1) / stride[s] + 1);
    return d;
  }
  ConvParams params() const { return {cross_correlation, pre, post, stride, dilation, groups}; }
};

// Runs one conv node: forward (x, w -> y), backward data (dy, w -> dx) or backward weights
// (x, dy -> dw); `a` and `b` are the two inputs in that order.
Dense run_conv(OpKind kind, const ConvCase& c, const Dense& a, const Dense& b) {
  GraphBuilder builder;
  const char* roles[3];
  std::vector<std::int64_t> out_dims;
  std::string type;
  switch (kind) {
    case OpKind::conv_bwd_data:
      roles[0] = "dy", roles[1] = "w", roles[2] = "dx", out_dims = c.x_dims,
      type = "ConvolutionBwdAttributes";
      break;
    case OpKind::conv_bwd_weights:
      roles[0] = "x", roles[1] = "dy", roles[2] = "dw", out_dims = c.w_dims(),
      type = "ConvolutionWrwAttributes";
      break;
    default:
      roles[0] = "x", roles[1] = "w", roles[2] = "y", out_dims = c.y_dims(),
      type = "ConvolutionFwdAttributes";
  }
  const auto ua = builder.tensor(roles[0], a.dims), ub = builder.tensor(roles[1], b.dims);
  const auto uo = builder.tensor(roles[2], out_dims);
  builder.node(type, kind, {{roles[0], ua}, {roles[1], ub}}, {{roles[2], uo}}, c.params());
  Values values{{ua, a}, {ub, b}};
  run_reference(builder.graph(), values);
  return values.at(uo);
}

// y straight from the definition, with a bounds check per term.
Dense naive_forward(const ConvCase& c, const Dense& x, const Dense& w) {
  Dense y(c.y_dims());
  const std::size_t sp = c.spatial();
  const auto w_dims = c.w_dims();
  const std::int64_t cg = w_dims[1], kg = c.k / c.groups, taps = product(c.kernel);
  const auto x_strides = x.strides(), w_strides = w.strides(), y_strides = y.strides();
  for (std::int64_t yi = 0; yi < y.size(); ++yi) {
    std::vector<std::int64_t> idx(y.dims.size());
    for (std::size_t d = 0; d < idx.size(); ++d) idx[d] = yi / y_strides[d] % y.dims[d];
    const std::int64_t n = idx[0], k = idx[1], g = k / kg;
    double sum = 0;
    for (std::int64_t cl = 0; cl < cg; ++cl)
      for (std::int64_t t = 0; t < taps; ++t) {
        std::int64_t x_off = n * x_strides[0] + (g * cg + cl) * x_strides[1];
        std::int64_t w_off = k * w_strides[0] + cl * w_strides[1];
        bool inside = true;
        std::int64_t rest = t;
        for (std::size_t s = sp; s-- > 0;) {
          const std::int64_t r = rest % c.kernel[s];
          rest /= c.kernel[s];
          const std::int64_t i = idx[2 + s] * c.stride[s] - c.pre[s] + r * c.dilation[s];
          if (i < 0 || i >= c.x_dims[2 + s]) inside = false;
          x_off += i * x_strides[2 + s];
          w_off += (c.cross_correlation ? r : c.kernel[s] - 1 - r) * w_strides[2 + s];
        }
        if (inside) sum += x.data[x_off] * w.data[w_off];
      }
    y.data[yi] = sum;
  }
  return y;
}

std::vector<ConvCase> cases() {
  return {
      {"basic_2d", {2, 3, 5, 6}, 4, 1, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
      {"groups_stride2", {2, 4, 7, 8}, 6, 2, {3, 2}, {1, 0}, {1, 1}, {2, 2}, {1, 1}},
      {"dilation_asymmetric_padding", {1, 3, 9, 7}, 2, 1, {3, 3}, {2, 0}, {0, 3}, {1, 2}, {2, 3}},
      {"depthwise", {1, 4, 5, 5}, 4, 4, {3, 3}, {1, 1}, {1, 1}, {2, 2}, {1, 1}},
      {"convolution_mode", {1, 2, 5, 6}, 3, 1, {2, 3}, {1, 0}, {0, 2}, {1, 2}, {1, 1}, false},
      {"stride_beyond_kernel", {1, 2, 7, 7}, 2, 1, {1, 1}, {0, 0}, {0, 0}, {3, 3}, {1, 1}},
      {"3d", {1, 4, 4, 5, 6}, 4, 2, {3, 2, 3}, {1, 0, 1}, {0, 1, 1}, {2, 1, 2}, {1, 2, 1}},
      {"3d_convolution_mode",
       {2, 2, 3, 4, 4},
       2,
       1,
       {2, 2, 3},
       {0, 1, 1},
       {1, 0, 1},
       {1, 2, 1},
       {2, 1, 1},
       false},
      {"1d", {2, 3, 11}, 2, 1, {3}, {2}, {1}, {2}, {2}},
      // Channel counts that fill the four-channel blocks of forward and backward data, plus a
      // partial block, with and without groups.
      {"channel_blocks", {2, 9, 6, 7}, 10, 1, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
      {"grouped_channel_blocks", {1, 10, 5, 6}, 10, 2, {3, 2}, {1, 0}, {1, 1}, {1, 1}, {1, 2}},
  };
}

TEST(ReferenceConv, HandComputedForward) {
  // x = [1, 2, 3, 4] (1-D along W), w = [1, 10], pre 1, post 0, stride 2:
  // o=0 reads positions -1, 0 -> 0*1 + 1*10 = 10; o=1 reads 1, 2 -> 2*1 + 3*10 = 32.
  ConvCase c{"hand", {1, 1, 1, 4}, 1, 1, {1, 2}, {0, 1}, {0, 0}, {1, 2}, {1, 1}};
  const Dense y =
      run_conv(OpKind::conv_fwd, c, dense({1, 1, 1, 4}, {1, 2, 3, 4}), dense({1, 1, 1, 2}, {1, 10}));
  ASSERT_EQ(y.dims, (std::vector<std::int64_t>{1, 1, 1, 2}));
  EXPECT_DOUBLE_EQ(y.data[0], 10);
  EXPECT_DOUBLE_EQ(y.data[1], 32);
  // CONVOLUTION mode flips the filter: w acts as [10, 1]: o=0 -> 1*1 = 1; o=1 -> 2*10 + 3*1 = 23.
  c.cross_correlation = false;
  const Dense flipped =
      run_conv(OpKind::conv_fwd, c, dense({1, 1, 1, 4}, {1, 2, 3, 4}), dense({1, 1, 1, 2}, {1, 10}));
  EXPECT_DOUBLE_EQ(flipped.data[0], 1);
  EXPECT_DOUBLE_EQ(flipped.data[1], 23);
}

TEST(ReferenceConv, HandComputedTwoChannels) {
  // 2 input channels, 1x1 filter [2, -1]: y = 2 * x0 - x1.
  ConvCase c{"1x1", {1, 2, 1, 3}, 1, 1, {1, 1}, {0, 0}, {0, 0}, {1, 1}, {1, 1}};
  const Dense y =
      run_conv(OpKind::conv_fwd, c, dense({1, 2, 1, 3}, {1, 2, 3, 10, 20, 30}), dense({1, 2, 1, 1}, {2, -1}));
  EXPECT_EQ(y.data, (std::vector<double>{-8, -16, -24}));
}

TEST(ReferenceConv, ForwardMatchesDefinition) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    const Dense x = seeded(c.x_dims, 1), w = seeded(c.w_dims(), 2);
    const Dense y = run_conv(OpKind::conv_fwd, c, x, w);
    const Dense expected = naive_forward(c, x, w);
    ASSERT_EQ(y.dims, expected.dims);
    for (std::int64_t i = 0; i < y.size(); ++i) ASSERT_NEAR(y.data[i], expected.data[i], 1e-12) << "at " << i;
  }
}

TEST(ReferenceConv, BackwardDataIsAdjointOfForward) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    const Dense x = seeded(c.x_dims, 3), w = seeded(c.w_dims(), 4), dy = seeded(c.y_dims(), 5);
    const double forward = inner(run_conv(OpKind::conv_fwd, c, x, w), dy);
    const double backward = inner(x, run_conv(OpKind::conv_bwd_data, c, dy, w));
    EXPECT_NEAR(forward, backward, 1e-9 * std::max(1.0, std::abs(forward)));
  }
}

TEST(ReferenceConv, BackwardWeightsIsAdjointOfForward) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    const Dense x = seeded(c.x_dims, 6), w = seeded(c.w_dims(), 7), dy = seeded(c.y_dims(), 8);
    const double forward = inner(run_conv(OpKind::conv_fwd, c, x, w), dy);
    const double backward = inner(w, run_conv(OpKind::conv_bwd_weights, c, x, dy));
    EXPECT_NEAR(forward, backward, 1e-9 * std::max(1.0, std::abs(forward)));
  }
}

TEST(ReferenceConv, PointwiseConvEqualsMatmul) {
  // y[n, k, h, w] = sum_c w[k, c] x[n, c, h, w]: a matmul of w [1, K, C] (broadcast over the
  // batch) with x viewed as [N, C, H*W].
  const std::int64_t n = 2, c = 5, h = 3, wd = 4, k = 3;
  const ConvCase conv{"1x1", {n, c, h, wd}, k, 1, {1, 1}, {0, 0}, {0, 0}, {1, 1}, {1, 1}};
  const Dense x = seeded({n, c, h, wd}, 9), w = seeded({k, c, 1, 1}, 10);
  const Dense y = run_conv(OpKind::conv_fwd, conv, x, w);

  GraphBuilder builder;
  const auto a = builder.tensor("a", {1, k, c}), b = builder.tensor("b", {n, c, h * wd});
  const auto out = builder.tensor("c", {n, k, h * wd});
  builder.node("MatmulAttributes", OpKind::matmul, {{"a", a}, {"b", b}}, {{"c", out}}, MatmulParams{});
  Values values{{a, dense({1, k, c}, w.data)}, {b, dense({n, c, h * wd}, x.data)}};
  run_reference(builder.graph(), values);
  ASSERT_EQ(values.at(out).size(), y.size());
  for (std::int64_t i = 0; i < y.size(); ++i) EXPECT_NEAR(values.at(out).data[i], y.data[i], 1e-12);
}

TEST(ReferenceConv, MultithreadedEqualsSingleThreaded) {
  const ConvCase c{"mt", {3, 4, 9, 10}, 6, 2, {3, 3}, {1, 2}, {1, 0}, {2, 1}, {1, 2}};
  const Dense x = seeded(c.x_dims, 11), w = seeded(c.w_dims(), 12), dy = seeded(c.y_dims(), 13);
  auto run_all = [&] {
    return std::vector<Dense>{run_conv(OpKind::conv_fwd, c, x, w), run_conv(OpKind::conv_bwd_data, c, dy, w),
                              run_conv(OpKind::conv_bwd_weights, c, x, dy)};
  };
  std::vector<Dense> single, multi;
  {
    ThreadsOverride one(1);
    single = run_all();
  }
  {
    ThreadsOverride three(3);
    multi = run_all();
  }
  for (std::size_t i = 0; i < single.size(); ++i) EXPECT_EQ(single[i].data, multi[i].data) << "output " << i;
}

TEST(ReferenceConv, RejectsChannelMismatch) {
  const ConvCase c{"bad", {1, 3, 4, 4}, 2, 1, {1, 1}, {0, 0}, {0, 0}, {1, 1}, {1, 1}};
  EXPECT_THROW(run_conv(OpKind::conv_fwd, c, seeded({1, 3, 4, 4}, 1), seeded({2, 2, 1, 1}, 2)),
               std::runtime_error);
}

}  // namespace
}  // namespace dnnbench::testing
