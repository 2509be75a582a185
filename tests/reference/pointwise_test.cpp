// Pointwise reference: every op on hand-picked values, relu clips, and broadcasting.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "reference_test_support.hpp"

namespace dnnbench::testing {
namespace {

Dense run_pointwise(const PointwiseParams& p, const Dense& in0, const Dense* in1,
                    const std::vector<std::int64_t>& out) {
  GraphBuilder builder;
  const auto u0 = builder.tensor("in_0", in0.dims);
  std::vector<Port> inputs{{"in_0", u0}};
  Values values{{u0, in0}};
  if (in1) {
    const auto u1 = builder.tensor("in_1", in1->dims);
    inputs.push_back({"in_1", u1});
    values.emplace(u1, *in1);
  }
  const auto uo = builder.tensor("out_0", out);
  builder.node("PointwiseAttributes", OpKind::pointwise, inputs, {{"out_0", uo}}, p);
  run_reference(builder.graph(), values);
  return values.at(uo);
}

PointwiseParams options(PointwiseOp op, void (*set)(PointwiseParams&)) {
  PointwiseParams p = pointwise(op);
  set(p);
  return p;
}

double unary(PointwiseParams p, double x) {
  return run_pointwise(p, dense({1}, {x}), nullptr, {1}).data[0];
}
double unary(PointwiseOp op, double x) {
  return unary(pointwise(op), x);
}
double binary(PointwiseOp op, double a, double b) {
  const Dense rhs = dense({1}, {b});
  return run_pointwise(pointwise(op), dense({1}, {a}), &rhs, {1}).data[0];
}

TEST(ReferencePointwise, BinaryOps) {
  EXPECT_DOUBLE_EQ(binary(PointwiseOp::add, 3, 4), 7);
  EXPECT_DOUBLE_EQ(binary(PointwiseOp::sub, 3, 4), -1);
  EXPECT_DOUBLE_EQ(binary(PointwiseOp::mul, 3, 4), 12);
  EXPECT_DOUBLE_EQ(binary(PointwiseOp::div, 3, 4), 0.75);
  EXPECT_DOUBLE_EQ(binary(PointwiseOp::max, 3, 4), 4);
  EXPECT_DOUBLE_EQ(binary(PointwiseOp::min, 3, 4), 3);
  EXPECT_DOUBLE_EQ(binary(PointwiseOp::pow, 2, 10), 1024);
}

TEST(ReferencePointwise, UnaryOps) {
  EXPECT_DOUBLE_EQ(unary(PointwiseOp::relu, -2), 0);
  EXPECT_DOUBLE_EQ(unary(PointwiseOp::relu, 2), 2);
  EXPECT_NEAR(unary(PointwiseOp::gelu, 1), 0.8413447460685429, 1e-15);  // 1 * Phi(1)
  EXPECT_NEAR(unary(PointwiseOp::gelu, -1), -0.15865525393145707, 1e-15);
  // 0.5 (1 + tanh(sqrt(2/pi) (1 + 0.044715))) = 0.841191990607...
  EXPECT_NEAR(unary(PointwiseOp::gelu_tanh, 1), 0.8411919906082768, 1e-12);
  EXPECT_NEAR(unary(PointwiseOp::sigmoid, 0), 0.5, 1e-15);
  EXPECT_NEAR(unary(PointwiseOp::sigmoid, 2), 1 / (1 + std::exp(-2.0)), 1e-15);
  EXPECT_NEAR(unary(PointwiseOp::tanh, 0.5), std::tanh(0.5), 1e-15);
  EXPECT_NEAR(unary(PointwiseOp::swish, 2), 2 / (1 + std::exp(-2.0)), 1e-15);
  EXPECT_NEAR(unary(options(PointwiseOp::swish, [](PointwiseParams& p) { p.swish_beta = 0.5; }), 2),
              2 / (1 + std::exp(-1.0)), 1e-15);
  EXPECT_DOUBLE_EQ(unary(PointwiseOp::elu, 3), 3);
  EXPECT_NEAR(unary(PointwiseOp::elu, -1), std::exp(-1.0) - 1, 1e-15);
  EXPECT_NEAR(unary(options(PointwiseOp::elu, [](PointwiseParams& p) { p.elu_alpha = 2; }), -1),
              2 * (std::exp(-1.0) - 1), 1e-15);
  EXPECT_NEAR(unary(PointwiseOp::softplus, 0), std::log(2.0), 1e-15);
  EXPECT_NEAR(unary(PointwiseOp::softplus, 800), 800, 1e-12);  // no overflow for large inputs
  EXPECT_NEAR(unary(options(PointwiseOp::softplus, [](PointwiseParams& p) { p.softplus_beta = 2; }), 1),
              std::log1p(std::exp(2.0)) / 2, 1e-15);
  EXPECT_NEAR(unary(PointwiseOp::exp, 1), std::numbers::e, 1e-15);
  EXPECT_NEAR(unary(PointwiseOp::log, std::numbers::e), 1, 1e-15);
  EXPECT_DOUBLE_EQ(unary(PointwiseOp::sqrt, 9), 3);
  EXPECT_DOUBLE_EQ(unary(PointwiseOp::rsqrt, 4), 0.5);
  EXPECT_DOUBLE_EQ(unary(PointwiseOp::abs, -3), 3);
  EXPECT_DOUBLE_EQ(unary(PointwiseOp::neg, 3), -3);
  EXPECT_DOUBLE_EQ(unary(PointwiseOp::recip, 4), 0.25);
  EXPECT_DOUBLE_EQ(unary(PointwiseOp::identity, -7.5), -7.5);
}

TEST(ReferencePointwise, ReluClips) {
  // lower 1, upper 4, slope 0.1: below 1 the line 1 + 0.1 (x - 1); above 4 clipped to 4.
  const PointwiseParams p = options(PointwiseOp::relu, [](PointwiseParams& q) {
    q.relu_lower_clip = 1;
    q.relu_upper_clip = 4;
    q.relu_lower_clip_slope = 0.1;
  });
  EXPECT_DOUBLE_EQ(unary(p, 2.5), 2.5);
  EXPECT_DOUBLE_EQ(unary(p, 4), 4);
  EXPECT_DOUBLE_EQ(unary(p, 9), 4);
  EXPECT_DOUBLE_EQ(unary(p, 1), 1);
  EXPECT_DOUBLE_EQ(unary(p, -1), 0.8);
  // Leaky relu: only the slope set.
  EXPECT_DOUBLE_EQ(
      unary(options(PointwiseOp::relu, [](PointwiseParams& q) { q.relu_lower_clip_slope = 0.01; }), -2),
      -0.02);
}

TEST(ReferencePointwise, BroadcastsFromTheRight) {
  const Dense a = dense({2, 3}, {1, 2, 3, 4, 5, 6});
  const Dense row = dense({3}, {10, 20, 30});
  EXPECT_EQ(run_pointwise(pointwise(PointwiseOp::add), a, &row, {2, 3}).data,
            (std::vector<double>{11, 22, 33, 14, 25, 36}));
  const Dense column = dense({2, 1}, {100, 200});
  EXPECT_EQ(run_pointwise(pointwise(PointwiseOp::sub), a, &column, {2, 3}).data,
            (std::vector<double>{-99, -98, -97, -196, -195, -194}));
  // Both inputs broadcast: [2,1] * [1,3] -> [2,3] (outer product).
  const Dense left = dense({2, 1}, {1, 2}), right = dense({1, 3}, {3, 4, 5});
  EXPECT_EQ(run_pointwise(pointwise(PointwiseOp::mul), left, &right, {2, 3}).data,
            (std::vector<double>{3, 4, 5, 6, 8, 10}));
  // A unary op broadcasting its input to a larger output.
  EXPECT_EQ(run_pointwise(pointwise(PointwiseOp::neg), dense({1, 2}, {1, 2}), nullptr, {2, 2}).data,
            (std::vector<double>{-1, -2, -1, -2}));
}

TEST(ReferencePointwise, PerChannelBiasOnNchw) {
  const Dense x = seeded({2, 3, 2, 2}, 1), bias = dense({1, 3, 1, 1}, {1, 2, 3});
  const Dense y = run_pointwise(pointwise(PointwiseOp::add), x, &bias, x.dims);
  for (std::int64_t i = 0; i < y.size(); ++i) EXPECT_DOUBLE_EQ(y.data[i], x.data[i] + bias.data[i / 4 % 3]);
}

TEST(ReferencePointwise, BinaryWithoutSecondInputFails) {
  EXPECT_THROW(run_pointwise(pointwise(PointwiseOp::add), dense({1}, {1}), nullptr, {1}), std::runtime_error);
}

TEST(ReferencePointwise, RejectsNonBroadcastableInput) {
  const Dense b = dense({2}, {1, 2});
  EXPECT_THROW(run_pointwise(pointwise(PointwiseOp::add), dense({3}, {1, 2, 3}), &b, {3}),
               std::runtime_error);
}

}  // namespace
}  // namespace dnnbench::testing
