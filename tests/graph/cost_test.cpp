// graph_cost: FLOPs, minimum bytes and reduction length of each op family.
#include "graph/cost.hpp"

#include <gtest/gtest.h>

#include "../support/graph_builder.hpp"
#include "graph/validate.hpp"
#include "graph_test_util.hpp"

namespace dnnbench {
namespace {

using Dims = std::vector<std::int64_t>;
using testing::GraphBuilder;
using testing::pointwise_params;

ConvParams pad1(std::size_t spatial) {
  ConvParams p;
  p.pre_padding = p.post_padding = Dims(spatial, 1);
  p.stride = p.dilation = Dims(spatial, 1);
  return p;
}

TEST(CostTest, ConvForward) {
  GraphBuilder b;
  const auto x = b.tensor("x", {2, 8, 10, 10}), w = b.tensor("w", {16, 8, 3, 3}),
             y = b.tensor("y", {2, 16, 10, 10});
  b.node("ConvolutionFwdAttributes", OpKind::conv_fwd, {{"x", x}, {"w", w}}, {{"y", y}}, pad1(2));
  Graph g = b.build();
  validate_graph(g);
  const GraphCost c = graph_cost(g);
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 2 * 16 * 8 * 9 * 100);
  EXPECT_EQ(c.reduction_length, 8 * 9);
  EXPECT_DOUBLE_EQ(c.min_bytes, 4.0 * (1600 + 1152 + 3200));
}

TEST(CostTest, GroupedConvForward) {
  GraphBuilder b;
  const auto x = b.tensor("x", {2, 8, 9, 9}, DataType::f16), w = b.tensor("w", {12, 2, 3, 3}, DataType::f16);
  const auto y = b.tensor("y", {2, 12, 9, 9}, DataType::f16);
  b.node("ConvolutionFwdAttributes", OpKind::conv_fwd, {{"x", x}, {"w", w}}, {{"y", y}}, pad1(2));
  Graph g = b.build();
  validate_graph(g);
  const GraphCost c = graph_cost(g);
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 2 * 12 * 2 * 9 * 81);
  EXPECT_EQ(c.reduction_length, 2 * 9);
  EXPECT_DOUBLE_EQ(c.min_bytes, 2.0 * (2 * 8 * 81 + 12 * 2 * 9 + 2 * 12 * 81));
}

TEST(CostTest, ConvBackwardData) {
  GraphBuilder b;
  const auto dy = b.tensor("dy", {1, 8, 5, 5, 5}), w = b.tensor("w", {8, 2, 3, 3, 3});
  const auto dx = b.tensor("dx", {1, 4, 5, 5, 5});
  b.node("ConvolutionBwdAttributes", OpKind::conv_bwd_data, {{"dy", dy}, {"w", w}}, {{"dx", dx}}, pad1(3));
  Graph g = b.build();
  validate_graph(g);
  const GraphCost c = graph_cost(g);
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 1 * 8 * 2 * 27 * 125);
  EXPECT_EQ(c.reduction_length, (8 / 2) * 27);  // K/groups filters x kernel
}

TEST(CostTest, ConvBackwardWeights) {
  GraphBuilder b;
  const auto x = b.tensor("x", {2, 8, 8, 8}), dy = b.tensor("dy", {2, 16, 8, 8}),
             dw = b.tensor("dw", {16, 8, 3, 3});
  b.node("ConvolutionWrwAttributes", OpKind::conv_bwd_weights, {{"x", x}, {"dy", dy}}, {{"dw", dw}}, pad1(2));
  Graph g = b.build();
  validate_graph(g);
  const GraphCost c = graph_cost(g);
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 2 * 16 * 8 * 9 * 64);
  EXPECT_EQ(c.reduction_length, 2 * 64);  // N x output pixels
}

TEST(CostTest, Matmul) {
  GraphBuilder b;
  const auto a = b.tensor("a", {2, 1, 16, 32}), m = b.tensor("b", {3, 32, 8}),
             c = b.tensor("c", {2, 3, 16, 8});
  b.node("MatmulAttributes", OpKind::matmul, {{"a", a}, {"b", m}}, {{"c", c}}, MatmulParams{});
  Graph g = b.build();
  validate_graph(g);
  const GraphCost cost = graph_cost(g);
  EXPECT_DOUBLE_EQ(cost.flops, 2.0 * 6 * 16 * 8 * 32);
  EXPECT_EQ(cost.reduction_length, 32);
}

TEST(CostTest, FusedGraphSumsNodesAndSkipsVirtualBytes) {
  GraphBuilder b;
  const auto a = b.tensor("a", {16, 32}), w = b.tensor("b", {32, 8});
  const auto mm = b.virtual_tensor("mm", {16, 8});
  const auto bias = b.tensor("bias", {1, 8});
  const auto biased = b.virtual_tensor("biased", {16, 8});
  const auto y = b.tensor("y", {16, 8});
  b.node("MatmulAttributes", OpKind::matmul, {{"a", a}, {"b", w}}, {{"c", mm}}, MatmulParams{});
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", mm}, {"in_1", bias}}, {{"out_0", biased}},
         pointwise_params(PointwiseOp::add));
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", biased}}, {{"out_0", y}},
         pointwise_params(PointwiseOp::gelu));
  Graph g = b.build();
  validate_graph(g);
  const GraphCost c = graph_cost(g);
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 16 * 8 * 32 + 128 + 128);
  EXPECT_EQ(c.reduction_length, 32);
  EXPECT_DOUBLE_EQ(c.min_bytes, 4.0 * (512 + 256 + 8 + 128));
}

TEST(CostTest, Reduction) {
  GraphBuilder b;
  const auto in = b.tensor("in", {4, 8, 6, 6}), out = b.tensor("out", {4, 8, 1, 1});
  b.node("ReductionAttributes", OpKind::reduction, {{"in", in}}, {{"out", out}}, ReductionParams{});
  Graph g = b.build();
  validate_graph(g);
  const GraphCost c = graph_cost(g);
  EXPECT_DOUBLE_EQ(c.flops, 4 * 8 * 36);
  EXPECT_EQ(c.reduction_length, 36);
}

TEST(CostTest, NormsReduceOverTheNormalizedAxes) {
  GraphBuilder b;
  const auto x = b.tensor("x", {4, 6, 16}), s = b.tensor("scale", {16}), bias = b.tensor("bias", {16});
  const auto eps = b.scalar("epsilon", 1e-5);
  const auto y = b.tensor("y", {4, 6, 16});
  b.node("LayernormAttributes", OpKind::layernorm, {{"x", x}, {"scale", s}, {"bias", bias}, {"epsilon", eps}},
         {{"y", y}}, LayernormParams{.phase = NormPhase::inference, .normalized_dim_count = 2});
  Graph g = b.build();
  validate_graph(g);
  GraphCost c = graph_cost(g);
  EXPECT_EQ(c.reduction_length, 6 * 16);
  EXPECT_GT(c.flops, 4.0 * 6 * 16);
  EXPECT_DOUBLE_EQ(c.min_bytes, 4.0 * (384 + 16 + 16 + 384));  // the by-value epsilon is not moved

  GraphBuilder r;
  const auto rx = r.tensor("x", {2, 4, 6, 6}), rs = r.tensor("scale", {1, 4, 1, 1});
  const auto reps = r.scalar("epsilon", 1e-5);
  const auto ry = r.tensor("y", {2, 4, 6, 6}), rinv = r.tensor("inv_rms", {2, 4, 1, 1});
  r.node("RMSNormAttributes", OpKind::rmsnorm, {{"x", rx}, {"scale", rs}, {"epsilon", reps}},
         {{"y", ry}, {"inv_rms", rinv}}, RmsnormParams{});
  g = r.build();
  validate_graph(g);
  c = graph_cost(g);
  EXPECT_EQ(c.reduction_length, 36);
  EXPECT_GT(c.flops, 2.0 * 4 * 36);
}

TEST(CostTest, BatchnormInferenceAccumulatesNothing) {
  GraphBuilder b;
  const Dims stats{1, 6, 1, 1};
  const auto x = b.tensor("x", {2, 6, 5, 5});
  const auto m = b.tensor("mean", stats), v = b.tensor("inv_variance", stats), s = b.tensor("scale", stats),
             bias = b.tensor("bias", stats), y = b.tensor("y", {2, 6, 5, 5});
  b.node("BatchnormInferenceAttributes", OpKind::batchnorm_inference,
         {{"x", x}, {"mean", m}, {"inv_variance", v}, {"scale", s}, {"bias", bias}}, {{"y", y}},
         BatchnormParams{});
  Graph g = b.build();
  validate_graph(g);
  const GraphCost c = graph_cost(g);
  EXPECT_EQ(c.reduction_length, 1);
  EXPECT_DOUBLE_EQ(c.flops, 4.0 * 300);
}

TEST(CostTest, ResampleWindow) {
  GraphBuilder b;
  const auto x = b.tensor("x", {2, 4, 9, 9}), y = b.tensor("y", {2, 4, 4, 4});
  ResampleParams p;
  p.window = {3, 3};
  p.stride = {2, 2};
  p.pre_padding = p.post_padding = {0, 0};
  b.node("ResampleFwdAttributes", OpKind::resample, {{"x", x}}, {{"y", y}}, p);
  Graph g = b.build();
  validate_graph(g);
  const GraphCost c = graph_cost(g);
  EXPECT_EQ(c.reduction_length, 9);
  EXPECT_DOUBLE_EQ(c.flops, 2 * 4 * 16 * 9);
}

TEST(CostTest, UnsupportedNodesCostNothing) {
  GraphBuilder b;
  const auto q = b.tensor("q", {1, 2, 4, 8}), o = b.tensor("o", {1, 2, 4, 8});
  b.node("BlockScaleQuantizeAttributes", OpKind::unsupported, {{"q", q}}, {{"o", o}});
  const GraphCost c = graph_cost(b.build());
  EXPECT_DOUBLE_EQ(c.flops, 0);
  EXPECT_EQ(c.reduction_length, 1);
  EXPECT_DOUBLE_EQ(c.min_bytes, 4.0 * 128);
}

}  // namespace
}  // namespace dnnbench
