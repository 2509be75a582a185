// run_reference: dispatch over a fused graph with virtual intermediates, and its errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "reference_test_support.hpp"

namespace dnnbench::testing {
namespace {

TEST(ReferenceRun, FusedGraphKeepsVirtualIntermediates) {
  // matmul -> add bias (virtual) -> relu.
  GraphBuilder b;
  const auto a = b.tensor("a", {2, 2}), w = b.tensor("w", {2, 2}), bias = b.tensor("bias", {1, 2});
  const auto mm = b.virtual_tensor("mm", {2, 2}), biased = b.virtual_tensor("biased", {2, 2});
  const auto out = b.tensor("out", {2, 2});
  b.node("MatmulAttributes", OpKind::matmul, {{"a", a}, {"b", w}}, {{"c", mm}}, MatmulParams{});
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", mm}, {"in_1", bias}}, {{"out_0", biased}},
         pointwise(PointwiseOp::add));
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", biased}}, {{"out_0", out}},
         pointwise(PointwiseOp::relu));
  Values v{
      {a, dense({2, 2}, {1, 2, 3, 4})}, {w, dense({2, 2}, {1, 0, 0, -1})}, {bias, dense({1, 2}, {0.5, 3})}};
  run_reference(b.graph(), v);
  EXPECT_EQ(v.at(mm).data, (std::vector<double>{1, -2, 3, -4}));
  EXPECT_EQ(v.at(biased).data, (std::vector<double>{1.5, 1, 3.5, -1}));
  EXPECT_EQ(v.at(out).data, (std::vector<double>{1.5, 1, 3.5, 0}));
}

TEST(ReferenceRun, UnsupportedOpNamesTheNode) {
  GraphBuilder b;
  const auto q = b.tensor("q", {1, 1, 4, 8}), o = b.tensor("o", {1, 1, 4, 8});
  b.node("BlockScaleQuantizeAttributes", OpKind::unsupported, {{"q", q}}, {{"o", o}});
  Values v{{q, seeded({1, 1, 4, 8}, 1)}};
  try {
    run_reference(b.graph(), v);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("BlockScaleQuantizeAttributes_0"), std::string::npos) << what;
    EXPECT_NE(what.find("not supported"), std::string::npos) << what;
  }
}

TEST(ReferenceRun, MissingInputNamesRoleAndTensor) {
  GraphBuilder b;
  const auto x = b.tensor("x", {2}), y = b.tensor("y", {2});
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", x}}, {{"out_0", y}}, PointwiseParams{});
  Values v;
  try {
    run_reference(b.graph(), v);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("in_0"), std::string::npos) << what;
    EXPECT_NE(what.find("'x'"), std::string::npos) << what;
  }
}

TEST(ReferenceRun, RejectsValueWithWrongDims) {
  GraphBuilder b;
  const auto x = b.tensor("x", {2, 3}), y = b.tensor("y", {2, 3});
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", x}}, {{"out_0", y}}, PointwiseParams{});
  Values v{{x, Dense({3, 2})}};
  EXPECT_THROW(run_reference(b.graph(), v), std::runtime_error);
}

}  // namespace
}  // namespace dnnbench::testing
