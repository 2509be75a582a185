#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <set>
#include <vector>

#include "../support/graph_builder.hpp"
#include "tensor/compare.hpp"
#include "tensor/fill.hpp"
#include "tensor/host_tensor.hpp"

namespace dnnbench {
namespace {

using testing::GraphBuilder;

Dense dense(std::vector<std::int64_t> dims, std::vector<double> data) {
  Dense d(std::move(dims));
  d.data = std::move(data);
  return d;
}

TEST(Compare, ExactMatchPasses) {
  const auto r = compare_values(dense({2}, {1, 2}), dense({2}, {1, 2}), {1e-5, 1e-5, "", std::nullopt, 0});
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.max_abs_diff, 0);
  EXPECT_EQ(r.norm_rel_error, 0);
}

TEST(Compare, ReportsErrorsAndFirstMismatchIndex) {
  const auto r = compare_values(dense({2, 2}, {1, 2, 3, 4.5}), dense({2, 2}, {1, 2, 3, 4}),
                                {1e-3, 1e-3, "", std::nullopt, 0});
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.mismatches, 1);
  EXPECT_DOUBLE_EQ(r.max_abs_diff, 0.5);
  EXPECT_DOUBLE_EQ(r.max_rel_diff, 0.125);
  EXPECT_NEAR(r.norm_rel_error, 0.5 / std::sqrt(1 + 4 + 9 + 16), 1e-12);
  EXPECT_NE(r.first_mismatch.find("[1,1]"), std::string::npos) << r.first_mismatch;
}

TEST(Compare, LargeOutputsSplitOverThreadsGiveTheSerialFigures) {
  // 3 x 100000 elements: compared in chunks over the cores. Mismatches in two chunks, a NaN in a
  // third: the first mismatch is the lowest index, counts add, norms are the whole tensor's.
  const std::int64_t n = 3 * 100000;
  Dense ref({3, 100000}), out({3, 100000});
  for (std::int64_t i = 0; i < n; ++i) {
    ref.data[static_cast<std::size_t>(i)] = 1.0 + static_cast<double>(i % 7);
    out.data[static_cast<std::size_t>(i)] = ref.data[static_cast<std::size_t>(i)];
  }
  out.data[250001] += 0.5;
  out.data[150000] += 0.25;
  out.data[299999] = std::nan("");
  const auto r = compare_values(out, ref, {1e-3, 1e-3, "", std::nullopt, 0});
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.mismatches, 3);
  EXPECT_EQ(r.nonfinite, 1);
  EXPECT_DOUBLE_EQ(r.max_abs_diff, 0.5);
  EXPECT_NE(r.first_mismatch.find("[1,50000]"), std::string::npos) << r.first_mismatch;
  EXPECT_TRUE(std::isinf(r.norm_rel_error));  // a NaN where the reference is finite
  out.data[299999] = ref.data[299999];
  double diff_sq = 0.5 * 0.5 + 0.25 * 0.25, ref_sq = 0;
  for (double v : ref.data) ref_sq += v * v;
  EXPECT_NEAR(compare_values(out, ref, {1e-3, 1e-3, "", std::nullopt, 0}).norm_rel_error,
              std::sqrt(diff_sq / ref_sq), 1e-12);
}

TEST(Compare, ToleranceIsAbsolutePlusRelative) {
  const Tolerance tol{0.1, 0.01, "", std::nullopt, 0};
  EXPECT_TRUE(compare_values(dense({1}, {10.9}), dense({1}, {10}), tol).passed);   // 0.9 <= 0.01 + 1.0
  EXPECT_FALSE(compare_values(dense({1}, {11.1}), dense({1}, {10}), tol).passed);  // 1.1 > 1.01
  EXPECT_TRUE(compare_values(dense({1}, {0.009}), dense({1}, {0}), tol).passed);
}

TEST(Compare, NanOrInfWhereReferenceIsFiniteAlwaysFails) {
  const Tolerance loose{1e9, 1e9, "", std::nullopt, 0};
  const auto r = compare_values(dense({2}, {NAN, INFINITY}), dense({2}, {1, 1}), loose);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.nonfinite, 2);
  EXPECT_TRUE(compare_values(dense({1}, {NAN}), dense({1}, {NAN}), loose).passed);
}

TEST(Compare, DefaultTolerancesPerTypeScaleWithReductionLength) {
  const auto f32 = default_tolerance(DataType::f32, 1);
  const auto f16 = default_tolerance(DataType::f16, 1);
  const auto bf16 = default_tolerance(DataType::bf16, 1);
  EXPECT_LT(f32.rtol, f16.rtol);
  EXPECT_LT(f16.rtol, bf16.rtol);
  EXPECT_EQ(default_tolerance(DataType::i32, 100).atol, 0);
  EXPECT_DOUBLE_EQ(default_tolerance(DataType::f32, 64 * 16).atol, 4 * f32.atol);
  EXPECT_EQ(default_tolerance(DataType::f32, 64 * 16).rtol, f32.rtol);
  EXPECT_NE(default_tolerance(DataType::f16, 576).basis.find("576"), std::string::npos);
}

// The default fill of fp32 data uses every mantissa bit: an engine that rounds its inputs to
// TF32 (10 mantissa bits) or bf16 changes nearly every value, so the rounding shows in its error.
TEST(Fill, UniformFillOfFp32IsNotExactInReducedPrecision) {
  GraphBuilder b;
  b.tensor("x", {4, 256});
  const auto& desc = b.graph().tensors[0];
  const auto a = seeded_values(desc, {}, 1, FillKind::uniform);
  EXPECT_EQ(a.data, seeded_values(desc, {}, 1, FillKind::uniform).data);
  std::size_t exact_in_bf16 = 0, exact_in_fp16 = 0;
  for (double v : a.data) {
    EXPECT_NE(v, 0.0);
    EXPECT_GE(v, -1.0);
    EXPECT_LE(v, 1.0);
    EXPECT_EQ(v, round_to(DataType::f32, v));
    exact_in_bf16 += v == round_to(DataType::bf16, v);
    exact_in_fp16 += v == round_to(DataType::f16, v);  // fp16 has TF32's 10-bit mantissa
  }
  EXPECT_LT(exact_in_bf16, a.data.size() / 50);
  EXPECT_LT(exact_in_fp16, a.data.size() / 50);
}

// Perf-sized inputs fill on every core, in fixed blocks with streams of their own: the values
// are the same whatever the thread count, and no block repeats another's values.
TEST(Fill, ValuesDoNotDependOnTheThreadCount) {
  GraphBuilder b;
  b.tensor("x", {3, kFillBlock + 17});  // three blocks and a partial one
  b.tensor("h", {2, kFillBlock}, DataType::f16);
  for (const auto& desc : b.graph().tensors) {
    setenv("DNNBENCH_REFERENCE_THREADS", "1", 1);
    const auto one = seeded_values(desc, {}, 7);
    setenv("DNNBENCH_REFERENCE_THREADS", "3", 1);
    const auto three = seeded_values(desc, {}, 7);
    unsetenv("DNNBENCH_REFERENCE_THREADS");
    EXPECT_EQ(one.data, three.data) << desc.name;
    const std::vector<double> first(one.data.begin(), one.data.begin() + 64);
    const std::vector<double> second(one.data.begin() + kFillBlock, one.data.begin() + kFillBlock + 64);
    EXPECT_NE(first, second) << desc.name;
  }
}

// Inputs are filled straight into their storage: the same logical values as seeded_values, in
// any strides (channels-last here, and a broadcast stride of 0).
TEST(Fill, FillingTheStorageGivesTheSeededValuesInAnyStrides) {
  GraphBuilder b;
  const std::int64_t c = 3, hw = kFillBlock / 2 + 5;
  b.tensor("nhwc", {2, c, hw, 1}, DataType::f16, {c * hw, 1, c, c});
  b.tensor("full", {3, kFillBlock / 2}, DataType::f32);
  b.tensor("bcast", {4, 8}, DataType::f32, {0, 1});
  for (const auto& desc : b.graph().tensors) {
    HostTensor tensor(desc);
    fill_seeded(tensor, {}, 5);
    const auto expected = seeded_values(desc, {}, 5);
    const auto got = tensor.to_dense();
    if (desc.name != "bcast") {
      EXPECT_EQ(got.data, expected.data) << desc.name;
      continue;
    }
    // Rows alias one storage row: it holds the last row's values.
    for (std::size_t i = 0; i < got.data.size(); ++i) EXPECT_EQ(got.data[i], expected.data[24 + i % 8]) << i;
  }
}

namespace {

// The share of values that are multiples of 1/64 (the grid fill's values).
double share_on_grid(const std::vector<double>& values) {
  std::size_t on = 0;
  for (double v : values) on += std::floor(v * 64) == v * 64;
  return static_cast<double>(on) / static_cast<double>(values.size());
}

}  // namespace

TEST(Compare, ReducedPrecisionToleranceJudgesTheNormalizedError) {
  const auto tol = reduced_precision_tolerance(default_tolerance(DataType::f16, 576), DataType::f16, 576);
  ASSERT_TRUE(tol.max_norm_rel.has_value());
  EXPECT_NEAR(*tol.max_norm_rel, 2 * 0x1.0p-11 * 24, 1e-9);  // 2 u sqrt(576)
  EXPECT_NE(tol.basis.find("reduced-precision"), std::string::npos) << tol.basis;
  Dense ref({1000}), out({1000});
  for (std::size_t i = 0; i < ref.data.size(); ++i)
    ref.data[i] = out.data[i] = 1.0 + static_cast<double>(i % 7);
  ref.data[3] = 1e-3;  // terms that cancelled: an fp16 sum is off by many of its ulps here
  out.data[3] = 0.05;
  const auto near_zero = compare_values(out, ref, tol);
  EXPECT_TRUE(near_zero.passed) << "one element off near zero, the output right as a whole";
  EXPECT_GT(near_zero.mismatches, 0) << "still counted and reported";
  EXPECT_FALSE(compare_values(out, ref, default_tolerance(DataType::f16, 576)).passed);
  auto wrong = out;
  for (std::size_t i = 0; i < wrong.data.size(); i += 2) wrong.data[i] = -wrong.data[i];
  EXPECT_FALSE(compare_values(wrong, ref, tol).passed) << "a wrong output is far above the bound";
  auto nan = out;
  nan.data[10] = std::nan("");
  EXPECT_FALSE(compare_values(nan, ref, tol).passed);
  // A long reduction's bound is capped: a wrong output (norm_rel near 1 or above) always fails.
  EXPECT_EQ(*reduced_precision_tolerance(default_tolerance(DataType::f16, 1 << 30), DataType::f16, 1 << 30)
                 .max_norm_rel,
            0.5);
}

TEST(Fill, NormalFillUsesTheFullPrecisionOfNarrowTypes) {
  for (const auto dtype : {DataType::f16, DataType::bf16, DataType::f32, DataType::fp8_e4m3}) {
    GraphBuilder b;
    b.tensor("x", {64, 1024}, dtype);
    const auto values = seeded_values(b.graph().tensors[0], {}, 3).data;  // normal is the default
    double sum = 0, sum_sq = 0;
    for (double v : values) {
      ASSERT_EQ(v, round_to(dtype, v)) << dtype_name(dtype) << ": values are rounded to the type";
      ASSERT_NE(v, 0.0);
      ASSERT_LE(std::abs(v), 2.0) << "cut at 4 sigma";
      sum += v;
      sum_sq += v * v;
    }
    const double n = static_cast<double>(values.size());
    const double mean = sum / n, sigma = std::sqrt(sum_sq / n - mean * mean);
    EXPECT_NEAR(mean, 0.0, 0.02) << dtype_name(dtype);
    EXPECT_NEAR(sigma, 0.5, 0.01) << dtype_name(dtype) << ": N(0, 0.5^2), torch.randn's shape";
    // bf16 keeps 8 significant bits: its values in [1, 2) are on a 1/128 grid (half of them on
    // 1/64's) and above 2 all are; fp8 e4m3 keeps 4: most of its values are on the grid anyway.
    // The grid fill puts every value there.
    if (dtype != DataType::fp8_e4m3) {
      EXPECT_LT(share_on_grid(values), dtype == DataType::bf16 ? 0.4 : 0.05)
          << dtype_name(dtype) << ": not the 1/64 grid";
    }
  }
}

TEST(Fill, UniformFillIsOffTheGridInsideItsRange) {
  GraphBuilder b;
  b.tensor("h", {64, 256}, DataType::f16);
  const auto values = seeded_values(b.graph().tensors[0], {}, 3, FillKind::uniform).data;
  for (double v : values) {
    ASSERT_EQ(v, round_to(DataType::f16, v));
    ASSERT_GE(v, -1.0);
    ASSERT_LE(v, 1.0);
  }
  EXPECT_LT(share_on_grid(values), 0.2);
  EXPECT_EQ(fill_kind_from_name("full"), FillKind::uniform) << "the name of older recipes";
  EXPECT_EQ(fill_kind_from_name("normal"), FillKind::normal);
  EXPECT_FALSE(fill_kind_from_name("gaussian").has_value());
}

TEST(Fill, ConstrainedRangesStayInsideThemUnderTheNormalFill) {
  GraphBuilder b;
  b.tensor("var", {4096}, DataType::bf16);
  const FillRange positive{0.5, 2.0, true};
  for (double v : seeded_values(b.graph().tensors[0], positive, 9, FillKind::normal).data) {
    ASSERT_GE(v, 0.5);
    ASSERT_LE(v, 2.0);
  }
}

TEST(Fill, SeededFillsAreDeterministicPerUidAndNeverZero) {
  GraphBuilder b;
  const auto x = b.tensor("x", {4, 64});
  const auto& desc = b.graph().tensors[0];
  const auto a = seeded_values(desc, {}, 1, FillKind::grid);
  EXPECT_EQ(a.data, seeded_values(desc, {}, 1, FillKind::grid).data);
  EXPECT_NE(a.data, seeded_values(desc, {}, 2, FillKind::grid).data);
  std::set<double> distinct(a.data.begin(), a.data.end());
  EXPECT_GT(distinct.size(), 50u);
  for (double v : a.data) {
    EXPECT_NE(v, 0.0);
    EXPECT_GE(v, -1.0);
    EXPECT_LE(v, 1.0);
    EXPECT_EQ(v, round_to(DataType::bf16, v)) << "fill values must be exact in bf16";
  }
  (void)x;
}

TEST(Fill, RangesFollowHowTheGraphUsesATensor) {
  GraphBuilder b;
  const auto x = b.tensor("x", {8});
  const auto y = b.tensor("y", {8});
  const auto d = b.tensor("d", {8});
  const auto o1 = b.virtual_tensor("o1", {8});
  const auto o2 = b.tensor("o2", {8});
  PointwiseParams log_op;
  log_op.op = PointwiseOp::log;
  PointwiseParams div_op;
  div_op.op = PointwiseOp::div;
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", x}}, {{"out_0", o1}}, log_op);
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", o1}, {"in_1", d}}, {{"out_0", o2}}, div_op);
  const auto& g = b.graph();
  EXPECT_GT(fill_range_for(g, x).lo, 0);
  EXPECT_TRUE(fill_range_for(g, d).exclude_zero);
  EXPECT_GT(fill_range_for(g, d).lo, 0);
  EXPECT_LT(fill_range_for(g, y).lo, 0);
}

TEST(HostTensor, StridedStorageRoundTripsAndPoisonIsNan) {
  GraphBuilder b;
  // NHWC storage of a [1, 3, 2, 2] tensor.
  b.tensor("x", {1, 3, 2, 2}, DataType::f16, testing::channels_last_strides({1, 3, 2, 2}));
  HostTensor t(b.graph().tensors[0]);
  EXPECT_EQ(t.size_bytes(), 12u * 2);
  Dense values({1, 3, 2, 2});
  for (std::size_t i = 0; i < values.data.size(); ++i) values.data[i] = static_cast<double>(i);
  t.from_dense(values);
  EXPECT_EQ(t.to_dense().data, values.data);
  // Channel is the fastest dim in storage: element [0,1,0,0] (logical 4) sits at offset 1.
  EXPECT_EQ(load_element(DataType::f16, t.data() + 2), 4.0);
  t.poison();
  for (double v : t.to_dense().data) EXPECT_TRUE(std::isnan(v));
}

}  // namespace
}  // namespace dnnbench

namespace dnnbench {
namespace {

TEST(Compare, Tf32MathUsesHalfPrecisionBasesForFp32OutputsOnly) {
  const auto tf32 = tf32_math_tolerance(DataType::f32, 576);
  EXPECT_EQ(tf32.rtol, default_tolerance(DataType::f16, 576).rtol);
  EXPECT_NE(tf32.basis.find("TF32"), std::string::npos);
  EXPECT_EQ(tf32_math_tolerance(DataType::f16, 576).rtol, default_tolerance(DataType::f16, 576).rtol);
}

}  // namespace
}  // namespace dnnbench
