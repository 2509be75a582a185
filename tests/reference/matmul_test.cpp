// Matmul reference: a hand case, numpy-style batch broadcasting and column tiling against a
// naive triple loop.
#include <gtest/gtest.h>

#include <vector>

#include "reference/broadcast.hpp"
#include "reference_test_support.hpp"

namespace dnnbench::testing {
namespace {

Dense run_matmul(const Dense& a, const Dense& b, const std::vector<std::int64_t>& c_dims) {
  GraphBuilder builder;
  const auto ua = builder.tensor("a", a.dims), ub = builder.tensor("b", b.dims);
  const auto uc = builder.tensor("c", c_dims);
  builder.node("MatmulAttributes", OpKind::matmul, {{"a", ua}, {"b", ub}}, {{"c", uc}}, MatmulParams{});
  Values values{{ua, a}, {ub, b}};
  run_reference(builder.graph(), values);
  return values.at(uc);
}

Dense naive_matmul(const Dense& a, const Dense& b, const std::vector<std::int64_t>& c_dims) {
  Dense c(c_dims);
  const std::size_t r = c_dims.size();
  const std::int64_t m = c_dims[r - 2], n = c_dims[r - 1], k = a.dims[a.dims.size() - 1];
  const std::vector<std::int64_t> cb(c_dims.begin(), c_dims.end() - 2);
  const ref::BroadcastMap a_of({a.dims.begin(), a.dims.end() - 2}, cb),
      b_of({b.dims.begin(), b.dims.end() - 2}, cb);
  for (std::int64_t batch = 0; batch < product(cb); ++batch)
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (std::int64_t l = 0; l < k; ++l)
          s += a.data[(a_of(batch) * m + i) * k + l] * b.data[(b_of(batch) * k + l) * n + j];
        c.data[(batch * m + i) * n + j] = s;
      }
  return c;
}

TEST(ReferenceMatmul, HandComputed) {
  // [1 2; 3 4] x [5 6; 7 8] = [19 22; 43 50]
  const Dense c = run_matmul(dense({2, 2}, {1, 2, 3, 4}), dense({2, 2}, {5, 6, 7, 8}), {2, 2});
  EXPECT_EQ(c.data, (std::vector<double>{19, 22, 43, 50}));
}

TEST(ReferenceMatmul, NonSquare) {
  // [1 2 3] x [1; 0; -1] = [-2]; as [2,3] x [3,1].
  const Dense c = run_matmul(dense({2, 3}, {1, 2, 3, 4, 5, 6}), dense({3, 1}, {1, 0, -1}), {2, 1});
  EXPECT_EQ(c.data, (std::vector<double>{-2, -2}));
}

TEST(ReferenceMatmul, BroadcastsBatchDims) {
  struct Case {
    std::vector<std::int64_t> a, b, c;
  };
  const std::vector<Case> cases{
      {{2, 1, 5, 3}, {3, 3, 7}, {2, 3, 5, 7}},  // ranks differ, both sides broadcast
      {{5, 3}, {4, 3, 6}, {4, 5, 6}},           // rank-2 a against a batch of b
      {{4, 6, 3}, {1, 3, 2}, {4, 6, 2}},        // b's batch of 1 broadcasts
      {{1, 2, 9, 4}, {1, 1, 4, 5}, {1, 2, 9, 5}},
  };
  for (const auto& c : cases) {
    const Dense a = seeded(c.a, 1), b = seeded(c.b, 2);
    const Dense got = run_matmul(a, b, c.c), expected = naive_matmul(a, b, c.c);
    ASSERT_EQ(got.dims, expected.dims);
    for (std::int64_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got.data[i], expected.data[i], 1e-12);
  }
}

TEST(ReferenceMatmul, WideAndTallBeyondBlocks) {
  // M not a multiple of the row block, N beyond one column tile.
  const Dense a = seeded({7, 13}, 3), b = seeded({13, 1100}, 4);
  const Dense got = run_matmul(a, b, {7, 1100}), expected = naive_matmul(a, b, {7, 1100});
  for (std::int64_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got.data[i], expected.data[i], 1e-12);
}

TEST(ReferenceMatmul, MultithreadedEqualsSingleThreaded) {
  const Dense a = seeded({3, 17, 40}, 5), b = seeded({40, 33}, 6);
  Dense single, multi;
  {
    ThreadsOverride one(1);
    single = run_matmul(a, b, {3, 17, 33});
  }
  {
    ThreadsOverride four(4);
    multi = run_matmul(a, b, {3, 17, 33});
  }
  EXPECT_EQ(single.data, multi.data);
}

TEST(ReferenceMatmul, RejectsInnerDimMismatch) {
  EXPECT_THROW(run_matmul(seeded({2, 3}, 1), seeded({4, 2}, 2), {2, 2}), std::runtime_error);
}

}  // namespace
}  // namespace dnnbench::testing
