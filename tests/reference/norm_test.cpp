// Batchnorm inference, training and backward, layernorm and RMSNorm references: hand cases,
// statistics outputs and broadcasting of scale and bias.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "reference_test_support.hpp"

namespace dnnbench::testing {
namespace {

TEST(ReferenceBatchnorm, InferenceHandComputed) {
  GraphBuilder b;
  const auto x = b.tensor("x", {1, 2, 1, 2}), mean = b.tensor("mean", {1, 2, 1, 1}),
             inv = b.tensor("inv_variance", {1, 2, 1, 1}), scale = b.tensor("scale", {2}),
             bias = b.tensor("bias", {2}), y = b.tensor("y", {1, 2, 1, 2});
  b.node("BatchnormInferenceAttributes", OpKind::batchnorm_inference,
         {{"x", x}, {"mean", mean}, {"inv_variance", inv}, {"scale", scale}, {"bias", bias}}, {{"y", y}},
         BatchnormParams{});
  Values v{{x, dense({1, 2, 1, 2}, {1, 3, 10, 20})},
           {mean, dense({1, 2, 1, 1}, {2, 10})},
           {inv, dense({1, 2, 1, 1}, {0.5, 0.1})},
           {scale, dense({2}, {2, 3})},
           {bias, dense({2}, {1, -1})}};
  run_reference(b.graph(), v);
  // channel 0: 2 * (x - 2) * 0.5 + 1 -> 0, 2; channel 1: 3 * (x - 10) * 0.1 - 1 -> -1, 2.
  const auto& out = v.at(y).data;
  EXPECT_DOUBLE_EQ(out[0], 0);
  EXPECT_DOUBLE_EQ(out[1], 2);
  EXPECT_DOUBLE_EQ(out[2], -1);
  EXPECT_NEAR(out[3], 2, 1e-15);
}

TEST(ReferenceBatchnorm, VarianceExtTakesVarianceAndEpsilon) {
  GraphBuilder b;
  const auto x = b.tensor("x", {2, 1, 2}), mean = b.tensor("mean", {1}), var = b.tensor("variance", {1}),
             scale = b.tensor("scale", {1}), bias = b.tensor("bias", {1}), eps = b.scalar("epsilon", 0.5),
             y = b.tensor("y", {2, 1, 2});
  b.node("BatchnormInferenceAttributesVarianceExt", OpKind::batchnorm_inference,
         {{"x", x}, {"mean", mean}, {"variance", var}, {"scale", scale}, {"bias", bias}, {"epsilon", eps}},
         {{"y", y}}, BatchnormParams{.variance_ext = true});
  // variance 3.5 + epsilon 0.5 = 4 -> inv 0.5; y = (x - 1) * 0.5 * 1 + 0.
  Values v{{x, dense({2, 1, 2}, {1, 3, 5, 7})},
           {mean, dense({1}, {1})},
           {var, dense({1}, {3.5})},
           {scale, dense({1}, {1})},
           {bias, dense({1}, {0})}};
  run_reference(b.graph(), v);  // epsilon comes from the graph's by-value scalar
  EXPECT_EQ(v.at(y).data, (std::vector<double>{0, 1, 2, 3}));
}

TEST(ReferenceBatchnorm, TrainingHandComputedWithRunningAverages) {
  GraphBuilder b;
  // One channel, four values: mean 2.5, biased variance 1.25, unbiased 5/3; epsilon 0.
  const auto x = b.tensor("x", {2, 1, 2}), scale = b.tensor("scale", {1}), bias = b.tensor("bias", {1}),
             eps = b.scalar("epsilon", 0.0), prev_mean = b.tensor("prev_running_mean", {1}),
             prev_var = b.tensor("prev_running_variance", {1}), momentum = b.scalar("momentum", 0.25),
             y = b.tensor("y", {2, 1, 2}), mean = b.tensor("mean", {1}), inv = b.tensor("inv_variance", {1}),
             next_mean = b.tensor("next_running_mean", {1}),
             next_var = b.tensor("next_running_variance", {1});
  b.node("BatchnormAttributes", OpKind::batchnorm_training,
         {{"x", x},
          {"scale", scale},
          {"bias", bias},
          {"epsilon", eps},
          {"prev_running_mean", prev_mean},
          {"prev_running_variance", prev_var},
          {"momentum", momentum}},
         {{"y", y},
          {"mean", mean},
          {"inv_variance", inv},
          {"next_running_mean", next_mean},
          {"next_running_variance", next_var}},
         BatchnormParams{});
  Values v{{x, dense({2, 1, 2}, {1, 2, 3, 4})},
           {scale, dense({1}, {2})},
           {bias, dense({1}, {1})},
           {prev_mean, dense({1}, {0})},
           {prev_var, dense({1}, {1})}};
  run_reference(b.graph(), v);
  const double inv_std = 1 / std::sqrt(1.25);
  EXPECT_DOUBLE_EQ(v.at(mean).data[0], 2.5);
  EXPECT_DOUBLE_EQ(v.at(inv).data[0], inv_std);
  EXPECT_NEAR(v.at(y).data[0], 2 * (1 - 2.5) * inv_std + 1, 1e-14);
  EXPECT_NEAR(v.at(y).data[3], 2 * (4 - 2.5) * inv_std + 1, 1e-14);
  EXPECT_DOUBLE_EQ(v.at(next_mean).data[0], 0.75 * 0 + 0.25 * 2.5);
  EXPECT_NEAR(v.at(next_var).data[0], 0.75 * 1 + 0.25 * (5.0 / 3.0), 1e-15);
}

TEST(ReferenceBatchnorm, BackwardMatchesFiniteDifferencesOfTraining) {
  // dx of the training forward (statistics of the batch) against central differences of
  // L = sum(dy * y), with the saved statistics the forward computed.
  const std::vector<std::int64_t> dims{2, 2, 3};
  const std::vector<double> xs{0.3, -1.2, 0.8, 2.0, 0.1, -0.4, 1.1, 0.5, -0.7, -1.5, 0.9, 0.2};
  const std::vector<double> dys{0.5, -0.3, 0.2, 0.1, 0.9, -0.6, -0.2, 0.4, 0.7, -0.8, 0.3, 0.05};
  const std::vector<double> gamma{1.5, -0.5}, beta{0.2, 0.1};
  auto forward = [&](const std::vector<double>& xv, Values* saved) {
    GraphBuilder b;
    const auto x = b.tensor("x", dims), scale = b.tensor("scale", {2}), bias = b.tensor("bias", {2}),
               eps = b.scalar("epsilon", 1e-3), y = b.tensor("y", dims), mean = b.tensor("mean", {2}),
               inv = b.tensor("inv_variance", {2});
    b.node("BatchnormAttributes", OpKind::batchnorm_training,
           {{"x", x}, {"scale", scale}, {"bias", bias}, {"epsilon", eps}},
           {{"y", y}, {"mean", mean}, {"inv_variance", inv}}, BatchnormParams{});
    Values v{{x, dense(dims, xv)}, {scale, dense({2}, gamma)}, {bias, dense({2}, beta)}};
    run_reference(b.graph(), v);
    if (saved) *saved = {{0, v.at(mean)}, {1, v.at(inv)}};
    double loss = 0;
    for (std::size_t i = 0; i < dys.size(); ++i) loss += dys[i] * v.at(y).data[i];
    return loss;
  };
  Values stats;
  forward(xs, &stats);
  GraphBuilder b;
  const auto dy = b.tensor("dy", dims), x = b.tensor("x", dims), mean = b.tensor("mean", {2}),
             inv = b.tensor("inv_variance", {2}), scale = b.tensor("scale", {2}), dx = b.tensor("dx", dims),
             dscale = b.tensor("dscale", {2}), dbias = b.tensor("dbias", {2});
  b.node("BatchnormBackwardAttributes", OpKind::batchnorm_backward,
         {{"dy", dy}, {"x", x}, {"mean", mean}, {"inv_variance", inv}, {"scale", scale}},
         {{"dx", dx}, {"dscale", dscale}, {"dbias", dbias}}, BatchnormParams{});
  Values v{{dy, dense(dims, dys)},
           {x, dense(dims, xs)},
           {mean, stats.at(0)},
           {inv, stats.at(1)},
           {scale, dense({2}, gamma)}};
  run_reference(b.graph(), v);
  const double h = 1e-6;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    auto plus = xs, minus = xs;
    plus[i] += h;
    minus[i] -= h;
    EXPECT_NEAR(v.at(dx).data[i], (forward(plus, nullptr) - forward(minus, nullptr)) / (2 * h), 1e-6) << i;
  }
  // dbias = sum of dy per channel (channel 0: elements 0-2 and 6-8).
  EXPECT_NEAR(v.at(dbias).data[0], 0.5 - 0.3 + 0.2 - 0.2 + 0.4 + 0.7, 1e-15);
}

struct LayernormGraph {
  GraphBuilder b;
  std::int64_t x, scale, bias, eps, y, mean, inv;
  LayernormGraph(std::vector<std::int64_t> x_dims, std::vector<std::int64_t> scale_dims, std::int64_t k,
                 double epsilon, NormPhase phase) {
    std::vector<std::int64_t> stats = x_dims;
    for (std::size_t i = stats.size() - static_cast<std::size_t>(k); i < stats.size(); ++i) stats[i] = 1;
    x = b.tensor("x", x_dims);
    scale = b.tensor("scale", scale_dims);
    bias = b.tensor("bias", scale_dims);
    eps = b.scalar("epsilon", epsilon);
    y = b.tensor("y", x_dims);
    mean = b.tensor("mean", stats);
    inv = b.tensor("inv_variance", stats);
    b.node("LayernormAttributes", OpKind::layernorm,
           {{"x", x}, {"scale", scale}, {"bias", bias}, {"epsilon", eps}},
           {{"y", y}, {"mean", mean}, {"inv_variance", inv}}, LayernormParams{phase, k});
  }
};

TEST(ReferenceLayernorm, HandComputed) {
  LayernormGraph g({1, 4}, {4}, 1, 0.0, NormPhase::training);
  // x = 1, 2, 3, 4: mean 2.5, biased variance 1.25.
  Values v{{g.x, dense({1, 4}, {1, 2, 3, 4})},
           {g.scale, dense({4}, {1, 1, 2, 2})},
           {g.bias, dense({4}, {0, 1, 0, 1})}};
  run_reference(g.b.graph(), v);
  const double inv = 1 / std::sqrt(1.25);
  EXPECT_DOUBLE_EQ(v.at(g.mean).data[0], 2.5);
  EXPECT_DOUBLE_EQ(v.at(g.inv).data[0], inv);
  const auto& y = v.at(g.y).data;
  EXPECT_NEAR(y[0], -1.5 * inv, 1e-15);
  EXPECT_NEAR(y[1], -0.5 * inv + 1, 1e-15);
  EXPECT_NEAR(y[2], 2 * 0.5 * inv, 1e-15);
  EXPECT_NEAR(y[3], 2 * 1.5 * inv + 1, 1e-15);
}

TEST(ReferenceLayernorm, OutputHasZeroMeanUnitVarianceBeforeScale) {
  // Normalize the last two dims of [3, 4, 5, 6]; unit scale, zero bias.
  LayernormGraph g({3, 4, 5, 6}, {5, 6}, 2, 0.0, NormPhase::training);
  Dense x = seeded({3, 4, 5, 6}, 1);
  for (auto& value : x.data) value = 7 + 3 * value;  // far from zero, to exercise the two-pass variance
  Values v{{g.x, x}, {g.scale, Dense({5, 6}, 1.0)}, {g.bias, Dense({5, 6}, 0.0)}};
  run_reference(g.b.graph(), v);
  const auto& y = v.at(g.y).data;
  ASSERT_EQ(v.at(g.mean).size(), 12);
  for (std::int64_t group = 0; group < 12; ++group) {
    double sum = 0, squares = 0;
    for (std::int64_t i = 0; i < 30; ++i) sum += y[group * 30 + i];
    for (std::int64_t i = 0; i < 30; ++i) squares += y[group * 30 + i] * y[group * 30 + i];
    EXPECT_NEAR(sum / 30, 0, 1e-12);
    EXPECT_NEAR(squares / 30, 1, 1e-12);
  }
}

TEST(ReferenceLayernorm, ScaleBroadcastsFromTheRight) {
  // scale [1, 1, C] and [C] give the same result.
  const Dense x = seeded({2, 3, 4}, 2), scale = seeded({4}, 3), bias = seeded({4}, 4);
  LayernormGraph flat({2, 3, 4}, {4}, 1, 1e-5, NormPhase::inference);
  LayernormGraph full({2, 3, 4}, {1, 1, 4}, 1, 1e-5, NormPhase::inference);
  Values a{{flat.x, x}, {flat.scale, scale}, {flat.bias, bias}};
  Values b{{full.x, x}, {full.scale, dense({1, 1, 4}, scale.data)}, {full.bias, dense({1, 1, 4}, bias.data)}};
  run_reference(flat.b.graph(), a);
  run_reference(full.b.graph(), b);
  EXPECT_EQ(a.at(flat.y).data, b.at(full.y).data);
}

TEST(ReferenceRmsnorm, HandComputed) {
  GraphBuilder b;
  const auto x = b.tensor("x", {2, 2}), scale = b.tensor("scale", {2}), eps = b.scalar("epsilon", 0.0),
             y = b.tensor("y", {2, 2}), inv = b.tensor("inv_rms", {2, 1});
  b.node("RMSNormAttributes", OpKind::rmsnorm, {{"x", x}, {"scale", scale}, {"epsilon", eps}},
         {{"y", y}, {"inv_rms", inv}}, RmsnormParams{NormPhase::training});
  // Rows [3, 4] (rms sqrt(12.5)) and [1, 1] (rms 1).
  Values v{{x, dense({2, 2}, {3, 4, 1, 1})}, {scale, dense({2}, {1, 2})}};
  run_reference(b.graph(), v);
  const double r = 1 / std::sqrt(12.5);
  EXPECT_NEAR(v.at(inv).data[0], r, 1e-15);
  EXPECT_NEAR(v.at(inv).data[1], 1, 1e-15);
  const auto& out = v.at(y).data;
  EXPECT_NEAR(out[0], 3 * r, 1e-15);
  EXPECT_NEAR(out[1], 8 * r, 1e-15);
  EXPECT_NEAR(out[2], 1, 1e-15);
  EXPECT_NEAR(out[3], 2, 1e-15);
}

TEST(ReferenceRmsnorm, AxesFollowInvRmsAndBiasApplies) {
  // inv_rms [1, 3, 1]: normalize over dims 0 and 2 of x [2, 3, 4], per dim-1 slice.
  GraphBuilder b;
  const auto x = b.tensor("x", {2, 3, 4}), scale = b.tensor("scale", {1, 3, 1}),
             bias = b.tensor("bias", {1, 3, 1}), eps = b.scalar("epsilon", 1e-6),
             y = b.tensor("y", {2, 3, 4}), inv = b.tensor("inv_rms", {1, 3, 1});
  b.node("RMSNormAttributes", OpKind::rmsnorm, {{"x", x}, {"scale", scale}, {"epsilon", eps}, {"bias", bias}},
         {{"y", y}, {"inv_rms", inv}}, RmsnormParams{NormPhase::training});
  const Dense xv = seeded({2, 3, 4}, 5);
  Values v{{x, xv}, {scale, dense({1, 3, 1}, {1, 2, 3})}, {bias, dense({1, 3, 1}, {0.5, 0, -0.5})}};
  run_reference(b.graph(), v);
  for (std::int64_t c = 0; c < 3; ++c) {
    double squares = 0;
    for (std::int64_t n = 0; n < 2; ++n)
      for (std::int64_t j = 0; j < 4; ++j)
        squares += xv.data[(n * 3 + c) * 4 + j] * xv.data[(n * 3 + c) * 4 + j];
    const double r = 1 / std::sqrt(squares / 8 + 1e-6);
    EXPECT_NEAR(v.at(inv).data[c], r, 1e-14);
    for (std::int64_t n = 0; n < 2; ++n)
      for (std::int64_t j = 0; j < 4; ++j) {
        const std::int64_t at = (n * 3 + c) * 4 + j;
        EXPECT_NEAR(v.at(y).data[at], xv.data[at] * r * (c + 1) + 0.5 * (1 - c), 1e-14);
      }
  }
}

TEST(ReferenceRmsnorm, WithoutInvRmsNormalizesAllButBatch) {
  GraphBuilder b;
  const auto x = b.tensor("x", {2, 3}), scale = b.tensor("scale", {3}), eps = b.scalar("epsilon", 0.0),
             y = b.tensor("y", {2, 3});
  b.node("RMSNormAttributes", OpKind::rmsnorm, {{"x", x}, {"scale", scale}, {"epsilon", eps}}, {{"y", y}},
         RmsnormParams{});
  Values v{{x, dense({2, 3}, {1, 1, 1, 2, 2, 2})}, {scale, Dense({3}, 1.0)}};
  run_reference(b.graph(), v);
  for (double value : v.at(y).data) EXPECT_NEAR(value, 1, 1e-15);
}

}  // namespace
}  // namespace dnnbench::testing
