// Reduction reference: every mode on a hand-picked tensor, several reduced axes, and thread-count
// invariance.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "reference_test_support.hpp"

namespace dnnbench::testing {
namespace {

Dense run_reduction(ReductionMode mode, const Dense& in, const std::vector<std::int64_t>& out_dims) {
  GraphBuilder b;
  const auto ui = b.tensor("in", in.dims), uo = b.tensor("out", out_dims);
  b.node("ReductionAttributes", OpKind::reduction, {{"in", ui}}, {{"out", uo}}, ReductionParams{mode});
  Values v{{ui, in}};
  run_reference(b.graph(), v);
  return v.at(uo);
}

TEST(ReferenceReduction, EveryModeAlongLastAxis) {
  // Rows [1, -2, 0, 4] and [-3, 0.5, 2, -1].
  const Dense in = dense({2, 4}, {1, -2, 0, 4, -3, 0.5, 2, -1});
  auto reduce = [&](ReductionMode mode) { return run_reduction(mode, in, {2, 1}).data; };
  EXPECT_EQ(reduce(ReductionMode::add), (std::vector<double>{3, -1.5}));
  EXPECT_EQ(reduce(ReductionMode::mul), (std::vector<double>{0, 3}));
  EXPECT_EQ(reduce(ReductionMode::min), (std::vector<double>{-2, -3}));
  EXPECT_EQ(reduce(ReductionMode::max), (std::vector<double>{4, 2}));
  EXPECT_EQ(reduce(ReductionMode::amax), (std::vector<double>{4, 3}));
  EXPECT_EQ(reduce(ReductionMode::avg), (std::vector<double>{0.75, -0.375}));
  EXPECT_EQ(reduce(ReductionMode::norm1), (std::vector<double>{7, 6.5}));
  const auto norm2 = reduce(ReductionMode::norm2);
  EXPECT_DOUBLE_EQ(norm2[0], std::sqrt(21.0));
  EXPECT_DOUBLE_EQ(norm2[1], std::sqrt(14.25));
  EXPECT_EQ(reduce(ReductionMode::mul_no_zeros), (std::vector<double>{-8, 3}));
}

TEST(ReferenceReduction, SeveralAxesAndFullReduction) {
  // [2, 3, 2]: value = 100 n + 10 c + w.
  Dense in({2, 3, 2});
  for (std::int64_t n = 0; n < 2; ++n)
    for (std::int64_t c = 0; c < 3; ++c)
      for (std::int64_t w = 0; w < 2; ++w) in.data[(n * 3 + c) * 2 + w] = 100.0 * n + 10.0 * c + w;
  // Reduce n and w, keep c: sum over 4 values = 200 + 40 c + 2.
  EXPECT_EQ(run_reduction(ReductionMode::add, in, {1, 3, 1}).data, (std::vector<double>{202, 242, 282}));
  // Reduce c only: max over c = 100 n + 20 + w.
  EXPECT_EQ(run_reduction(ReductionMode::max, in, {2, 1, 2}).data, (std::vector<double>{20, 21, 120, 121}));
  EXPECT_EQ(run_reduction(ReductionMode::avg, in, {1, 1, 1}).data, (std::vector<double>{60.5}));
  // Nothing reduced: out equals in.
  EXPECT_EQ(run_reduction(ReductionMode::add, in, {2, 3, 2}).data, in.data);
}

TEST(ReferenceReduction, MultithreadedEqualsSingleThreaded) {
  const Dense in = seeded({7, 9, 11}, 3);
  Dense single, multi;
  {
    ThreadsOverride one(1);
    single = run_reduction(ReductionMode::norm2, in, {7, 1, 11});
  }
  {
    ThreadsOverride three(3);
    multi = run_reduction(ReductionMode::norm2, in, {7, 1, 11});
  }
  EXPECT_EQ(single.data, multi.data);
}

TEST(ReferenceReduction, RejectsOutputThatIsNotReducedShape) {
  EXPECT_THROW(run_reduction(ReductionMode::add, seeded({2, 4}, 1), {2, 2}), std::runtime_error);
}

}  // namespace
}  // namespace dnnbench::testing
