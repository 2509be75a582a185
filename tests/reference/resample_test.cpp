// Resample (pooling) reference: max and both average modes, with and without padding, 2-D and 3-D.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "reference_test_support.hpp"

namespace dnnbench::testing {
namespace {

Dense run_pool(ResampleMode mode, const Dense& x, const std::vector<std::int64_t>& y_dims,
               std::vector<std::int64_t> window, std::vector<std::int64_t> stride,
               std::vector<std::int64_t> pre, std::vector<std::int64_t> post) {
  GraphBuilder b;
  const auto ux = b.tensor("x", x.dims), uy = b.tensor("y", y_dims);
  b.node("ResampleFwdAttributes", OpKind::resample, {{"x", ux}}, {{"y", uy}},
         ResampleParams{mode, std::move(window), std::move(stride), std::move(pre), std::move(post)});
  Values v{{ux, x}};
  run_reference(b.graph(), v);
  return v.at(uy);
}

// 1x1x3x3 input 1..9.
const Dense kGrid = dense({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});

TEST(ReferenceResample, MaxPoolNoPadding) {
  const Dense y = run_pool(ResampleMode::maxpool, kGrid, {1, 1, 2, 2}, {2, 2}, {1, 1}, {0, 0}, {0, 0});
  EXPECT_EQ(y.data, (std::vector<double>{5, 6, 8, 9}));
}

TEST(ReferenceResample, MaxPoolIgnoresPadding) {
  // All-negative input: a padded zero must never win.
  Dense x = kGrid;
  for (auto& v : x.data) v = -v;
  // window 2, stride 2, pad 1 each side: windows rows {-1,0},{1,2}; cols likewise.
  const Dense y = run_pool(ResampleMode::maxpool, x, {1, 1, 2, 2}, {2, 2}, {2, 2}, {1, 1}, {1, 1});
  EXPECT_EQ(y.data, (std::vector<double>{-1, -2, -4, -5}));
}

TEST(ReferenceResample, AveragePoolingWithPadding) {
  // window 3x3, stride 1, pad 1: output (0, 0) covers inputs {1, 2, 4, 5} (sum 12) and 9 window
  // positions, all inside the padded extent.
  const Dense incl =
      run_pool(ResampleMode::avgpool_include_padding, kGrid, {1, 1, 3, 3}, {3, 3}, {1, 1}, {1, 1}, {1, 1});
  const Dense excl =
      run_pool(ResampleMode::avgpool_exclude_padding, kGrid, {1, 1, 3, 3}, {3, 3}, {1, 1}, {1, 1}, {1, 1});
  EXPECT_DOUBLE_EQ(incl.data[0], 12.0 / 9);
  EXPECT_DOUBLE_EQ(excl.data[0], 12.0 / 4);
  EXPECT_DOUBLE_EQ(incl.data[4], 45.0 / 9);  // centre: the whole input
  EXPECT_DOUBLE_EQ(excl.data[4], 5);
  EXPECT_DOUBLE_EQ(incl.data[1], 21.0 / 9);  // (0, 1): inputs 1..6
  EXPECT_DOUBLE_EQ(excl.data[1], 21.0 / 6);
}

TEST(ReferenceResample, IncludePaddingClipsWindowToPaddedExtent) {
  // 1-D along W: in 4 = [1, 2, 3, 4], window 3, stride 2, pre 1, post 0: out 2.
  // o=0: positions -1..1, all in [-1, 4): sum 3 / 3. o=1: positions 1..3: sum 9 / 3.
  // With post 0 and window 3 stride 3 pre 1, o=1 covers 2..4 but 4 is beyond in+post: count 2.
  const Dense x = dense({1, 1, 1, 4}, {1, 2, 3, 4});
  const Dense a =
      run_pool(ResampleMode::avgpool_include_padding, x, {1, 1, 1, 2}, {1, 3}, {1, 2}, {0, 1}, {0, 0});
  EXPECT_DOUBLE_EQ(a.data[0], 1);
  EXPECT_DOUBLE_EQ(a.data[1], 3);
  const Dense b =
      run_pool(ResampleMode::avgpool_include_padding, x, {1, 1, 1, 2}, {1, 3}, {1, 3}, {0, 1}, {0, 0});
  EXPECT_DOUBLE_EQ(b.data[0], 1);    // positions -1..1: (1 + 2) / 3
  EXPECT_DOUBLE_EQ(b.data[1], 3.5);  // positions 2..3 of the padded extent: (3 + 4) / 2
}

TEST(ReferenceResample, ThreeDimensional) {
  // 1x1x2x2x2 input 1..8, window 2x2x2: max 8, average 4.5.
  const Dense x = dense({1, 1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_EQ(
      run_pool(ResampleMode::maxpool, x, {1, 1, 1, 1, 1}, {2, 2, 2}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}).data,
      (std::vector<double>{8}));
  EXPECT_EQ(run_pool(ResampleMode::avgpool_exclude_padding, x, {1, 1, 1, 1, 1}, {2, 2, 2}, {2, 2, 2},
                     {0, 0, 0}, {0, 0, 0})
                .data,
            (std::vector<double>{4.5}));
  // Padding 1 at the front of depth only: the window at depth -1..0 sees the first plane (1..4).
  const Dense p = run_pool(ResampleMode::avgpool_include_padding, x, {1, 1, 2, 1, 1}, {2, 2, 2}, {1, 1, 1},
                           {1, 0, 0}, {0, 0, 0});
  EXPECT_DOUBLE_EQ(p.data[0], 10.0 / 8);
  EXPECT_DOUBLE_EQ(p.data[1], 36.0 / 8);
}

TEST(ReferenceResample, ChannelsAndBatchAreIndependent) {
  const Dense x = seeded({2, 3, 4, 4}, 1);
  const Dense y = run_pool(ResampleMode::maxpool, x, {2, 3, 2, 2}, {2, 2}, {2, 2}, {0, 0}, {0, 0});
  for (std::int64_t nc = 0; nc < 6; ++nc)
    for (std::int64_t i = 0; i < 2; ++i)
      for (std::int64_t j = 0; j < 2; ++j) {
        double m = -1e300;
        for (std::int64_t a = 0; a < 2; ++a)
          for (std::int64_t b = 0; b < 2; ++b) m = std::max(m, x.data[nc * 16 + (2 * i + a) * 4 + 2 * j + b]);
        EXPECT_EQ(y.data[nc * 4 + i * 2 + j], m);
      }
}

}  // namespace
}  // namespace dnnbench::testing
