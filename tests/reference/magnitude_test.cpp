// The componentwise bound on contractions: the magnitude reference (the graph on |inputs|) and
// compare_values' second chance. The case it exists for is simulated exactly: a library that keeps
// two partial sums of each output in fp16 (split-K) and adds them, against a library that drops
// one term (a wrong kernel), on outputs whose terms cancel.
#include <gtest/gtest.h>

#include <cmath>

#include "../support/graph_builder.hpp"
#include "reference/magnitude.hpp"
#include "session/graph_data.hpp"
#include "tensor/compare.hpp"
#include "tensor/dtype.hpp"

namespace dnnbench::testing {
namespace {

constexpr std::int64_t kM = 64, kK = 576, kN = 64;

Graph matmul_then(std::optional<PointwiseOp> epilogue, DataType dtype = DataType::f16) {
  GraphBuilder builder("mm", dtype);
  const auto a = builder.tensor("a", {kM, kK}, dtype), b = builder.tensor("b", {kK, kN}, dtype);
  const auto c = builder.tensor("c", {kM, kN}, epilogue ? DataType::f32 : dtype);
  builder.node("MatmulAttributes", OpKind::matmul, {{"a", a}, {"b", b}}, {{"c", c}}, MatmulParams{});
  if (epilogue) {
    const auto bias = builder.tensor("bias", {kM, kN}, dtype), y = builder.tensor("y", {kM, kN}, dtype);
    PointwiseParams p;
    p.op = *epilogue;
    builder.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", c}, {"in_1", bias}}, {{"out_0", y}}, p);
  }
  return builder.build();
}

std::int64_t only_output(const Graph& graph) {
  return graph.output_uids().front();
}

TEST(MagnitudeReference, AppliesToContractionsWithSignPreservingEpilogues) {
  EXPECT_TRUE(magnitude_reference_applies(matmul_then(std::nullopt)));
  EXPECT_TRUE(magnitude_reference_applies(matmul_then(PointwiseOp::add)));
  EXPECT_TRUE(magnitude_reference_applies(matmul_then(PointwiseOp::mul)));
  // |a| - |b| bounds nothing; a graph without a contraction has no sum to bound.
  EXPECT_FALSE(magnitude_reference_applies(matmul_then(PointwiseOp::sub)));
  EXPECT_FALSE(magnitude_reference_applies(matmul_then(PointwiseOp::div)));
  GraphBuilder builder;
  const auto x = builder.tensor("x", {4}), y = builder.tensor("y", {4});
  PointwiseParams relu;
  relu.op = PointwiseOp::relu;
  builder.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", x}}, {{"out_0", y}}, relu);
  EXPECT_FALSE(magnitude_reference_applies(builder.build()));
}

TEST(MagnitudeReference, IsTheSumOfAbsoluteProducts) {
  const Graph graph = matmul_then(std::nullopt);
  GraphData data(graph, 7);
  const Values* magnitude = data.magnitude(ReferenceKind::cpu_fp64);
  ASSERT_NE(magnitude, nullptr);
  const auto a = data.inputs().begin()->second.to_dense(),
             b = std::next(data.inputs().begin())->second.to_dense();
  double want = 0;
  for (std::int64_t k = 0; k < kK; ++k) want += std::abs(a.data[k] * b.data[k * kN]);
  EXPECT_NEAR(magnitude->at(only_output(graph)).data[0], want, 1e-9 * want);
  EXPECT_GE(magnitude->at(only_output(graph)).data[0],
            std::abs(data.reference().at(only_output(graph)).data[0]));
}

TEST(MagnitudeReference, NotAskedForOtherGraphs) {
  const Graph graph = matmul_then(PointwiseOp::sub);
  GraphData data(graph, 7);
  EXPECT_EQ(data.magnitude(ReferenceKind::cpu_fp64), nullptr);
}

// c[i][j] as a library computes it: the K terms in two halves, each half's sum rounded to fp16,
// then their sum rounded to fp16; `drop` leaves out term k = drop (a wrong kernel).
Dense library_output(const Dense& a, const Dense& b, std::int64_t drop = -1) {
  Dense c({kM, kN});
  for (std::int64_t i = 0; i < kM; ++i)
    for (std::int64_t j = 0; j < kN; ++j) {
      double half[2] = {0, 0};
      for (std::int64_t k = 0; k < kK; ++k)
        if (k != drop) half[k * 2 / kK] += a.data[i * kK + k] * b.data[k * kN + j];
      c.data[i * kN + j] =
          round_to(DataType::f16, round_to(DataType::f16, half[0]) + round_to(DataType::f16, half[1]));
    }
  return c;
}

TEST(ComponentwiseBound, PassesFp16PartialSumsAndFailsAMissingTerm) {
  const Graph graph = matmul_then(std::nullopt);
  const auto uid = only_output(graph);
  int default_failures = 0, componentwise_failures = 0, missing_term_caught = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    GraphData data(graph, seed);
    const auto a = data.inputs().begin()->second.to_dense(),
               b = std::next(data.inputs().begin())->second.to_dense();
    const Dense& ref = data.reference().at(uid);
    const Dense& magnitude = data.magnitude(ReferenceKind::cpu_fp64)->at(uid);
    const Tolerance base = default_tolerance(DataType::f16, kK);
    const Tolerance wide = componentwise_tolerance(base, DataType::f16, kK, false);
    const Dense out = library_output(a, b);
    default_failures += compare_values(out, ref, base).passed ? 0 : 1;
    componentwise_failures += compare_values(out, ref, wide, &magnitude).passed ? 0 : 1;
    missing_term_caught += compare_values(library_output(a, b, 17), ref, wide, &magnitude).passed ? 0 : 1;
  }
  // The partial sums' rounding is inside the bound every time; a dropped term outside it.
  EXPECT_EQ(componentwise_failures, 0);
  EXPECT_EQ(missing_term_caught, 20);
  // Not a vacuous test: the elementwise rule alone fails some of these correct outputs (2 of the 20
  // fixed seeds, at elements whose terms cancel).
  EXPECT_GT(default_failures, 0);
}

TEST(ComponentwiseBound, FactorIsTwoUnitRoundoffsPlusTheFp32ReferencesSum) {
  const Tolerance base = default_tolerance(DataType::f16, 576);
  EXPECT_DOUBLE_EQ(componentwise_tolerance(base, DataType::f16, 576, false).magnitude_factor, 2 * 0x1.0p-11);
  EXPECT_DOUBLE_EQ(componentwise_tolerance(base, DataType::f32, 576, true).magnitude_factor,
                   2 * 0x1.0p-24 + 24 * 0x1.0p-24);
  EXPECT_NE(componentwise_tolerance(base, DataType::f16, 576, false).basis.find("componentwise"),
            std::string::npos);
}

TEST(ComponentwiseBound, MagnitudeWidensOnlyWhereItIsLarge) {
  Tolerance tol = default_tolerance(DataType::f16, 1);
  tol = componentwise_tolerance(tol, DataType::f16, 1, false);  // factor 2^-10
  Dense ref({2}), out({2}), magnitude({2});
  ref.data = {0, 0};
  out.data = {0.01, 0.01};
  magnitude.data = {20, 1};  // 0.01 <= 2e-3 + 20/1024; 0.01 > 2e-3 + 1/1024
  const auto r = compare_values(out, ref, tol, &magnitude);
  EXPECT_EQ(r.mismatches, 1);
  EXPECT_NE(r.first_mismatch.find("index [1]"), std::string::npos);
  EXPECT_NE(r.first_mismatch.find("Σ|a·b| 1"), std::string::npos);
  // Without the magnitude tensor the factor is not applied.
  EXPECT_EQ(compare_values(out, ref, tol).mismatches, 2);
}

}  // namespace
}  // namespace dnnbench::testing
