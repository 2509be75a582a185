// Shape rules of every op family (graph/ops/*.cpp), run through validate_graph on graphs built
// in memory; plus the rules table and the normalization axes helpers.
#include "graph/ops/op_rules.hpp"

#include <gtest/gtest.h>

#include "../support/graph_builder.hpp"
#include "graph/ops/norm_axes.hpp"
#include "graph/validate.hpp"
#include "graph_test_util.hpp"

namespace dnnbench {
namespace {

using Dims = std::vector<std::int64_t>;
using testing::GraphBuilder;
using testing::pointwise_params;

ConvParams conv_params(Dims pad, Dims stride = {}, Dims dilation = {}, Dims post = {}) {
  ConvParams p;
  p.pre_padding = pad;
  p.post_padding = post.empty() ? pad : post;
  p.stride = stride.empty() ? Dims(pad.size(), 1) : stride;
  p.dilation = dilation.empty() ? Dims(pad.size(), 1) : dilation;
  return p;
}

// x, w, y dims in forward terms, whatever the direction.
Graph conv_graph(const Dims& x, const Dims& w, const Dims& y, ConvParams p, OpKind kind = OpKind::conv_fwd) {
  GraphBuilder b("conv");
  switch (kind) {
    case OpKind::conv_bwd_data: {
      const auto dy = b.tensor("dy", y), wt = b.tensor("w", w), dx = b.tensor("dx", x);
      b.node("ConvolutionBwdAttributes", kind, {{"dy", dy}, {"w", wt}}, {{"dx", dx}}, p);
      break;
    }
    case OpKind::conv_bwd_weights: {
      const auto xt = b.tensor("x", x), dy = b.tensor("dy", y), dw = b.tensor("dw", w);
      b.node("ConvolutionWrwAttributes", kind, {{"x", xt}, {"dy", dy}}, {{"dw", dw}}, p);
      break;
    }
    default: {
      const auto xt = b.tensor("x", x), wt = b.tensor("w", w), yt = b.tensor("y", y);
      b.node("ConvolutionFwdAttributes", kind, {{"x", xt}, {"w", wt}}, {{"y", yt}}, p);
    }
  }
  return b.build();
}

TEST(GraphOpRules, TableFindsEveryFamily) {
  const std::pair<const char*, OpKind> types[] = {
      {"ConvolutionFwdAttributes", OpKind::conv_fwd},
      {"ConvolutionBwdAttributes", OpKind::conv_bwd_data},
      {"ConvolutionWrwAttributes", OpKind::conv_bwd_weights},
      {"MatmulAttributes", OpKind::matmul},
      {"PointwiseAttributes", OpKind::pointwise},
      {"BatchnormInferenceAttributes", OpKind::batchnorm_inference},
      {"BatchnormInferenceAttributesVarianceExt", OpKind::batchnorm_inference},
      {"LayernormAttributes", OpKind::layernorm},
      {"RMSNormAttributes", OpKind::rmsnorm},
      {"BatchnormAttributes", OpKind::batchnorm_training},
      {"BatchnormBackwardAttributes", OpKind::batchnorm_backward},
      {"ReductionAttributes", OpKind::reduction},
      {"ResampleFwdAttributes", OpKind::resample},
      {"SdpaAttributes", OpKind::sdpa_fwd},
      {"SdpaBackwardAttributes", OpKind::sdpa_bwd},
  };
  for (const auto& [type, kind] : types) {
    const OpRules* rules = find_op_rules(type);
    ASSERT_NE(rules, nullptr) << type;
    EXPECT_EQ(rules->type, type);
    EXPECT_EQ(rules->kind, kind) << type;
    EXPECT_NE(rules->parse, nullptr);
    EXPECT_NE(rules->validate, nullptr);
    EXPECT_NE(rules->cost, nullptr);
  }
  EXPECT_EQ(find_op_rules("BlockScaleQuantizeAttributes"), nullptr);
  EXPECT_EQ(find_op_rules("LayernormBackwardAttributes"), nullptr);
  EXPECT_EQ(find_op_rules(""), nullptr);
}

// ---- convolution --------------------------------------------------------------------------

TEST(GraphConvRules, ValidForwardShapes) {
  Graph g = conv_graph({2, 8, 10, 10}, {16, 8, 3, 3}, {2, 16, 10, 10}, conv_params({1, 1}));
  EXPECT_NO_THROW(validate_graph(g));
  g = conv_graph({2, 4, 12, 12}, {8, 4, 3, 3}, {2, 8, 6, 6}, conv_params({1, 1}, {2, 2}));
  EXPECT_NO_THROW(validate_graph(g));
  g = conv_graph({1, 4, 11, 11}, {8, 4, 3, 3}, {1, 8, 11, 11}, conv_params({2, 2}, {}, {2, 2}));
  EXPECT_NO_THROW(validate_graph(g));
  g = conv_graph({1, 4, 7, 7}, {8, 4, 3, 3}, {1, 8, 6, 7}, conv_params({1, 0}, {}, {}, {0, 2}));
  EXPECT_NO_THROW(validate_graph(g));
  g = conv_graph({1, 4, 6, 6, 6}, {8, 4, 3, 3, 3}, {1, 8, 6, 6, 6}, conv_params({1, 1, 1}));
  EXPECT_NO_THROW(validate_graph(g));
}

TEST(GraphConvRules, GroupsAreDerived) {
  Graph g = conv_graph({2, 8, 9, 9}, {12, 2, 3, 3}, {2, 12, 7, 7}, conv_params({0, 0}));
  validate_graph(g);
  EXPECT_EQ(g.nodes[0].as<ConvParams>().groups, 4);
  g = conv_graph({2, 8, 9, 9}, {8, 1, 3, 3}, {2, 8, 9, 9}, conv_params({1, 1}));  // depthwise
  validate_graph(g);
  EXPECT_EQ(g.nodes[0].as<ConvParams>().groups, 8);
}

TEST(GraphConvRules, ConvolutionModeAccepted) {
  auto p = conv_params({1, 1});
  p.cross_correlation = false;
  Graph g = conv_graph({1, 4, 8, 8}, {4, 4, 3, 3}, {1, 4, 8, 8}, p);
  EXPECT_NO_THROW(validate_graph(g));
}

TEST(GraphConvRules, MissingSettingsGetDefaults) {
  Graph g = conv_graph({1, 4, 8, 8}, {4, 4, 3, 3}, {1, 4, 6, 6}, ConvParams{});
  validate_graph(g);
  const auto& p = g.nodes[0].as<ConvParams>();
  EXPECT_EQ(p.pre_padding, (Dims{0, 0}));
  EXPECT_EQ(p.post_padding, (Dims{0, 0}));
  EXPECT_EQ(p.stride, (Dims{1, 1}));
  EXPECT_EQ(p.dilation, (Dims{1, 1}));
}

TEST(GraphConvRules, Ranks) {
  Graph g = conv_graph({2, 8, 10}, {16, 8, 3}, {2, 16, 8}, conv_params({0}));
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.x_tensor_uid",
                     "x \"x\" has rank 3 (dims [2, 8, 10]); expected rank 4 or 5");
  g = conv_graph({2, 8, 10, 10}, {16, 8, 3, 3, 3}, {2, 16, 8, 8}, conv_params({0, 0}));
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.w_tensor_uid", "w \"w\" has rank 5");
  g = conv_graph({2, 8, 10, 10}, {16, 8, 3, 3}, {2, 16, 8}, conv_params({0, 0}));
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].outputs.y_tensor_uid", "expected rank 4");
}

TEST(GraphConvRules, SettingLengthsAndRanges) {
  Graph g = conv_graph({2, 8, 10, 10}, {16, 8, 3, 3}, {2, 16, 10, 10}, conv_params({1, 1, 1}));
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].parameters.pre_padding",
                     "pre_padding has 3 entries; expected 2 (one per spatial dimension)");
  g = conv_graph({2, 8, 10, 10}, {16, 8, 3, 3}, {2, 16, 10, 10}, conv_params({1, 1}, {1, 0}));
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].parameters.stride[1]", "stride must be >= 1");
  g = conv_graph({2, 8, 10, 10}, {16, 8, 3, 3}, {2, 16, 10, 10}, conv_params({1, 1}, {}, {0, 1}));
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].parameters.dilation[0]",
                     "dilation must be >= 1 and <= 2147483647, got 0");
  g = conv_graph({2, 8, 10, 10}, {16, 8, 3, 3}, {2, 16, 10, 10}, conv_params({-1, 1}));
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].parameters.pre_padding[0]", "pre_padding must be >= 0");
  g = conv_graph({2, 8, 10, 10}, {16, 8, 3, 3}, {2, 16, 10, 10}, conv_params({1, std::int64_t{1} << 40}));
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].parameters.pre_padding[1]", "<= 2147483647");
  g.nodes[0].settings_key = "attributes";  // the path follows where the file put the settings
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].attributes.pre_padding[1]", "<= 2147483647");
}

TEST(GraphConvRules, OutputSizeMismatch) {
  Graph g = conv_graph({2, 8, 10, 10}, {16, 8, 3, 3}, {2, 16, 10, 10}, conv_params({0, 0}));
  EXPECT_INPUT_ERROR(
      validate_graph(g), "nodes[0].outputs.y_tensor_uid",
      "y \"y\" has dims [2, 16, 10, 10]; expected [2, 16, 8, 8] (output size = floor((in + pre_padding + "
      "post_padding - dilation*(kernel-1) - 1) / stride) + 1)");
  g = conv_graph({1, 4, 11, 11}, {8, 4, 3, 3}, {1, 8, 11, 11}, conv_params({1, 1}, {}, {2, 2}));
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].outputs.y_tensor_uid", "expected [1, 8, 9, 9]");
}

TEST(GraphConvRules, KernelLargerThanInput) {
  Graph g = conv_graph({1, 4, 2, 8}, {4, 4, 3, 3}, {1, 4, 1, 6}, conv_params({0, 0}));
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.w_tensor_uid",
                     "the dilated kernel (3) is larger than the padded input (2) in spatial dimension 0");
}

TEST(GraphConvRules, GroupMismatch) {
  Graph g = conv_graph({2, 6, 8, 8}, {8, 4, 3, 3}, {2, 8, 6, 6}, conv_params({0, 0}));
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.w_tensor_uid",
                     "x has 6 channels, not a multiple of w's 4 channels per group");
  g = conv_graph({2, 8, 8, 8}, {6, 2, 3, 3}, {2, 6, 6, 6}, conv_params({0, 0}));
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.w_tensor_uid",
                     "w has 6 filters (dims[0]), not a multiple of the 4 groups");
}

TEST(GraphConvRules, BatchAndChannelMismatch) {
  Graph g = conv_graph({2, 8, 8, 8}, {16, 8, 3, 3}, {3, 16, 6, 6}, conv_params({0, 0}));
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].outputs.y_tensor_uid", "y has batch 3 but x has batch 2");
  g = conv_graph({2, 8, 8, 8}, {16, 8, 3, 3}, {2, 8, 6, 6}, conv_params({0, 0}));
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].outputs.y_tensor_uid",
                     "y has 8 channels; expected 16 (the filter count K");
}

TEST(GraphConvRules, MissingRole) {
  Graph g = conv_graph({2, 8, 8, 8}, {16, 8, 3, 3}, {2, 16, 6, 6}, conv_params({0, 0}));
  g.nodes[0].inputs.pop_back();
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs",
                     "missing required input `w_tensor_uid` of ConvolutionFwdAttributes");
  g = conv_graph({2, 8, 8, 8}, {16, 8, 3, 3}, {2, 16, 6, 6}, conv_params({0, 0}));
  g.nodes[0].outputs.clear();
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].outputs", "missing required output `y_tensor_uid`");
}

TEST(GraphConvRules, BackwardData) {
  Graph g =
      conv_graph({2, 8, 8, 8}, {16, 8, 3, 3}, {2, 16, 8, 8}, conv_params({1, 1}), OpKind::conv_bwd_data);
  EXPECT_NO_THROW(validate_graph(g));
  g = conv_graph({1, 4, 5, 5, 5}, {8, 2, 3, 3, 3}, {1, 8, 5, 5, 5}, conv_params({1, 1, 1}),
                 OpKind::conv_bwd_data);
  validate_graph(g);
  EXPECT_EQ(g.nodes[0].as<ConvParams>().groups, 2);
  g = conv_graph({2, 8, 8, 8}, {16, 8, 3, 3}, {2, 16, 7, 8}, conv_params({1, 1}), OpKind::conv_bwd_data);
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.dy_tensor_uid",
                     "dy \"dy\" has dims [2, 16, 7, 8]; expected [2, 16, 8, 8]");
  g = conv_graph({2, 6, 8, 8}, {16, 4, 3, 3}, {2, 16, 8, 8}, conv_params({1, 1}), OpKind::conv_bwd_data);
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.w_tensor_uid",
                     "dx has 6 channels, not a multiple of w's 4");
}

TEST(GraphConvRules, BackwardWeights) {
  Graph g =
      conv_graph({2, 8, 8, 8}, {16, 8, 3, 3}, {2, 16, 8, 8}, conv_params({1, 1}), OpKind::conv_bwd_weights);
  EXPECT_NO_THROW(validate_graph(g));
  g = conv_graph({2, 8, 8, 8}, {8, 4, 3, 3}, {2, 8, 8, 8}, conv_params({1, 1}), OpKind::conv_bwd_weights);
  validate_graph(g);
  EXPECT_EQ(g.nodes[0].as<ConvParams>().groups, 2);
  g = conv_graph({2, 8, 8, 8}, {16, 8, 3, 3}, {2, 16, 8, 8}, conv_params({0, 0}), OpKind::conv_bwd_weights);
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.dy_tensor_uid", "expected [2, 16, 6, 6]");
  g = conv_graph({2, 8, 8, 8}, {16, 8, 3}, {2, 16, 8, 8}, conv_params({1, 1}), OpKind::conv_bwd_weights);
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].outputs.dw_tensor_uid", "dw \"dw\" has rank 3");
}

// ---- matmul -------------------------------------------------------------------------------

Graph matmul_graph(const Dims& a, const Dims& b, const Dims& c) {
  GraphBuilder gb("mm");
  const auto at = gb.tensor("a", a), bt = gb.tensor("b", b), ct = gb.tensor("c", c);
  gb.node("MatmulAttributes", OpKind::matmul, {{"a", at}, {"b", bt}}, {{"c", ct}}, MatmulParams{});
  return gb.build();
}

TEST(GraphMatmulRules, ValidShapes) {
  for (const auto& [a, b, c] : std::vector<std::tuple<Dims, Dims, Dims>>{
           {{32, 48}, {48, 24}, {32, 24}},
           {{4, 16, 32}, {4, 32, 8}, {4, 16, 8}},
           {{2, 1, 16, 32}, {3, 32, 8}, {2, 3, 16, 8}},
           {{5, 16, 32}, {32, 8}, {5, 16, 8}},
           {{16, 32}, {1, 32, 8}, {1, 16, 8}},
           {{4, 16, 32}, {4, 32, 8}, {1, 4, 16, 8}},
       }) {
    Graph g = matmul_graph(a, b, c);
    EXPECT_NO_THROW(validate_graph(g)) << a.size() << "-d a";
  }
}

TEST(GraphMatmulRules, InnerDimensionMismatch) {
  Graph g = matmul_graph({32, 48}, {40, 24}, {32, 24});
  EXPECT_INPUT_ERROR(
      validate_graph(g), "nodes[0].inputs.b_tensor_uid",
      "inner dimensions differ: a \"a\" is [..., M=32, K=48] but b \"b\" is [..., K=40, N=24]");
}

TEST(GraphMatmulRules, BatchBroadcast) {
  Graph g = matmul_graph({2, 16, 32}, {3, 32, 8}, {3, 16, 8});
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.b_tensor_uid",
                     "batch dimensions of a [2, 16, 32] and b [3, 32, 8] do not broadcast");
  g = matmul_graph({2, 1, 16, 32}, {3, 32, 8}, {2, 16, 8});
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].outputs.c_tensor_uid",
                     "c \"c\" has dims [2, 16, 8]; expected [2, 3, 16, 8]");
}

TEST(GraphMatmulRules, OutputShape) {
  Graph g = matmul_graph({32, 48}, {48, 24}, {32, 25});
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].outputs.c_tensor_uid", "expected [32, 24]");
  g = matmul_graph({48}, {48, 24}, {1, 24});
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.a_tensor_uid",
                     "a \"a\" has rank 1; expected rank >= 2");
}

// ---- pointwise ----------------------------------------------------------------------------

Graph pointwise_graph(PointwiseOp op, const Dims& in0, const Dims* in1, const Dims& out) {
  GraphBuilder gb("pw");
  std::vector<Port> inputs{{"in_0", gb.tensor("a", in0)}};
  if (in1) inputs.push_back({"in_1", gb.tensor("b", *in1)});
  const auto o = gb.tensor("out", out);
  gb.node("PointwiseAttributes", OpKind::pointwise, inputs, {{"out_0", o}}, pointwise_params(op));
  return gb.build();
}

TEST(GraphPointwiseRules, Broadcasting) {
  const Dims bias{1, 8, 1, 1}, row{10}, full{2, 8, 6, 6}, bad{1, 7, 1, 1}, too_long{1, 2, 8, 6, 6};
  Graph g = pointwise_graph(PointwiseOp::add, full, &bias, full);
  EXPECT_NO_THROW(validate_graph(g));
  g = pointwise_graph(PointwiseOp::mul, {4, 6, 10}, &row, {4, 6, 10});
  EXPECT_NO_THROW(validate_graph(g));
  g = pointwise_graph(PointwiseOp::add, full, &bad, full);
  EXPECT_INPUT_ERROR(
      validate_graph(g), "nodes[0].inputs.in_1_tensor_uid",
      "in_1 \"b\" with dims [1, 7, 1, 1] does not broadcast to out_0 \"out\" with dims [2, 8, 6, 6]");
  g = pointwise_graph(PointwiseOp::add, full, &too_long, full);
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.in_1_tensor_uid", "does not broadcast");
  g = pointwise_graph(PointwiseOp::relu, {2, 8}, nullptr, {2, 9});
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.in_0_tensor_uid", "does not broadcast");
}

TEST(GraphPointwiseRules, Arity) {
  const Dims d{4};
  Graph g = pointwise_graph(PointwiseOp::relu, d, &d, d);
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.in_1_tensor_uid",
                     "relu_fwd takes 1 input but in_1 is given; expected it absent or null");
  g = pointwise_graph(PointwiseOp::sub, d, nullptr, d);
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs", "missing required input `in_1_tensor_uid`");
  g = pointwise_graph(PointwiseOp::add, d, &d, d);
  g.nodes[0].inputs.push_back({"in_2", 1});
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.in_2_tensor_uid",
                     "add takes 2 inputs but in_2 is given");
}

TEST(GraphPointwiseRules, ReluClips) {
  const Dims d{4};
  Graph g = pointwise_graph(PointwiseOp::relu, d, nullptr, d);
  auto& p = std::get<PointwiseParams>(g.nodes[0].params);
  p.relu_lower_clip = 1.0;
  p.relu_upper_clip = 0.5;
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.relu_upper_clip", "is below relu_lower_clip");
}

// ---- batchnorm ----------------------------------------------------------------------------

Graph batchnorm_graph(bool ext, const Dims& stats = {1, 6, 1, 1}, const Dims& y = {2, 6, 5, 5}) {
  GraphBuilder gb("bn");
  const Dims x{2, 6, 5, 5};
  std::vector<Port> inputs{{"x", gb.tensor("x", x)},
                           {"mean", gb.tensor("mean", stats)},
                           {ext ? "variance" : "inv_variance", gb.tensor("var", stats)},
                           {"scale", gb.tensor("scale", stats)},
                           {"bias", gb.tensor("bias", {6})}};
  if (ext) inputs.push_back({"epsilon", gb.scalar("epsilon", 1e-5)});
  const auto yt = gb.tensor("y", y);
  gb.node(ext ? "BatchnormInferenceAttributesVarianceExt" : "BatchnormInferenceAttributes",
          OpKind::batchnorm_inference, inputs, {{"y", yt}}, BatchnormParams{.variance_ext = ext});
  return gb.build();
}

TEST(GraphBatchnormRules, Shapes) {
  Graph g = batchnorm_graph(false);
  EXPECT_NO_THROW(validate_graph(g));
  g = batchnorm_graph(true);
  EXPECT_NO_THROW(validate_graph(g));
  g = batchnorm_graph(false, {1, 6, 5, 1});
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.mean_tensor_uid",
                     "mean \"mean\" has dims [1, 6, 5, 1]; expected [1, 6, 1, 1] (one value per channel");
  g = batchnorm_graph(false, {1, 6, 1, 1}, {2, 6, 5, 4});
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].outputs.y_tensor_uid", "expected [2, 6, 5, 5] (same as x)");
  g = batchnorm_graph(true);
  g.nodes[0].inputs.pop_back();
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs", "missing required input `epsilon_tensor_uid`");
  g = batchnorm_graph(false);
  g.nodes[0].inputs[2].role = "variance";  // plain batchnorm needs inv_variance
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs",
                     "missing required input `inv_variance_tensor_uid`");
}

Graph batchnorm_training_graph(bool running, bool with_mean = true) {
  GraphBuilder gb("bn_train");
  const Dims x{2, 6, 5, 5}, stats{1, 6, 1, 1};
  std::vector<Port> inputs{{"x", gb.tensor("x", x)},
                           {"scale", gb.tensor("scale", stats)},
                           {"bias", gb.tensor("bias", {6})},
                           {"epsilon", gb.scalar("epsilon", 1e-5)}};
  std::vector<Port> outputs{{"y", gb.tensor("y", x)}, {"inv_variance", gb.tensor("inv_variance", stats)}};
  if (with_mean) outputs.push_back({"mean", gb.tensor("mean", stats)});
  if (running) {
    inputs.push_back({"prev_running_mean", gb.tensor("prev_running_mean", stats)});
    inputs.push_back({"prev_running_variance", gb.tensor("prev_running_variance", stats)});
    inputs.push_back({"momentum", gb.scalar("momentum", 0.1)});
    outputs.push_back({"next_running_mean", gb.tensor("next_running_mean", stats)});
    outputs.push_back({"next_running_variance", gb.tensor("next_running_variance", stats)});
  }
  gb.node("BatchnormAttributes", OpKind::batchnorm_training, inputs, outputs, BatchnormParams{});
  return gb.build();
}

TEST(GraphBatchnormRules, TrainingRolesComeInGroups) {
  Graph g = batchnorm_training_graph(false);
  EXPECT_NO_THROW(validate_graph(g));
  g = batchnorm_training_graph(true);
  EXPECT_NO_THROW(validate_graph(g));
  g = batchnorm_training_graph(false, false);
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].outputs.mean_tensor_uid", "come as a pair");
  g = batchnorm_training_graph(true);
  g.nodes[0].outputs.pop_back();  // next_running_variance
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.prev_running_mean_tensor_uid", "together");
}

TEST(GraphBatchnormRules, BackwardShapes) {
  GraphBuilder gb("bn_bwd");
  const Dims x{2, 6, 5, 5}, stats{1, 6, 1, 1};
  gb.node("BatchnormBackwardAttributes", OpKind::batchnorm_backward,
          {{"dy", gb.tensor("dy", x)},
           {"x", gb.tensor("x", x)},
           {"mean", gb.tensor("mean", stats)},
           {"inv_variance", gb.tensor("inv_variance", stats)},
           {"scale", gb.tensor("scale", {6})}},
          {{"dx", gb.tensor("dx", x)},
           {"dscale", gb.tensor("dscale", stats)},
           {"dbias", gb.tensor("dbias", {5})}},
          BatchnormParams{});
  Graph g = gb.build();
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].outputs.dbias_tensor_uid",
                     "dbias \"dbias\" has dims [5]; expected [1, 6, 1, 1]");
}

// ---- layernorm ----------------------------------------------------------------------------

Graph layernorm_graph(std::int64_t count, const Dims& scale, const Dims& stats, bool with_stats = true) {
  GraphBuilder gb("ln");
  const Dims x{4, 6, 16};
  const auto xt = gb.tensor("x", x), s = gb.tensor("scale", scale), b = gb.tensor("bias", scale);
  const auto eps = gb.scalar("epsilon", 1e-5);
  std::vector<Port> outputs{{"y", gb.tensor("y", x)}};
  if (with_stats) {
    outputs.push_back({"mean", gb.tensor("mean", stats)});
    outputs.push_back({"inv_variance", gb.tensor("inv_variance", stats)});
  }
  gb.node("LayernormAttributes", OpKind::layernorm, {{"x", xt}, {"scale", s}, {"bias", b}, {"epsilon", eps}},
          outputs, LayernormParams{.phase = NormPhase::training, .normalized_dim_count = count});
  return gb.build();
}

TEST(GraphLayernormRules, Shapes) {
  Graph g = layernorm_graph(1, {16}, {4, 6, 1});
  EXPECT_NO_THROW(validate_graph(g));
  EXPECT_EQ(layernorm_normalized_axes(g, g.nodes[0]), (std::vector<int>{2}));
  g = layernorm_graph(2, {6, 16}, {4, 1, 1});
  EXPECT_NO_THROW(validate_graph(g));
  EXPECT_EQ(layernorm_normalized_axes(g, g.nodes[0]), (std::vector<int>{1, 2}));
  g = layernorm_graph(1, {16}, {}, false);  // inference without statistics
  EXPECT_NO_THROW(validate_graph(g));
}

TEST(GraphLayernormRules, NormalizedDimCount) {
  Graph g = layernorm_graph(0, {16}, {4, 6, 1});
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].attributes.normalized_dim_count",
                     "normalized_dim_count is 0 but x has rank 3; expected 1 to 2");
  g = layernorm_graph(3, {16}, {4, 6, 1});
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].attributes.normalized_dim_count",
                     "normalized_dim_count is 3");
}

TEST(GraphLayernormRules, StatisticsAndScale) {
  Graph g = layernorm_graph(1, {16}, {4, 1, 1});
  EXPECT_INPUT_ERROR(
      validate_graph(g), "nodes[0].outputs.mean_tensor_uid",
      "mean \"mean\" has dims [4, 1, 1]; expected [4, 6, 1] (x dims with the normalized axes set to 1)");
  g = layernorm_graph(1, {15}, {4, 6, 1});
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.scale_tensor_uid",
                     "scale \"scale\" with dims [15] does not broadcast to x [4, 6, 16]");
  g = layernorm_graph(1, {16}, {4, 6, 1});
  g.tensors[3].scalar_value.reset();
  g.tensors[3].dims = {2};
  g.tensors[3].strides = {1};
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.epsilon_tensor_uid",
                     "epsilon \"epsilon\" has dims [2]; expected a by-value scalar or a one-element tensor");
  g.tensors[3].dims = {1};  // a one-element tensor is fine
  EXPECT_NO_THROW(validate_graph(g));
}

// ---- rmsnorm ------------------------------------------------------------------------------

Graph rmsnorm_graph(const Dims* inv_rms, bool bias = false) {
  GraphBuilder gb("rms");
  const Dims x{2, 4, 6, 6};
  std::vector<Port> inputs{{"x", gb.tensor("x", x)},
                           {"scale", gb.tensor("scale", {1, 4, 1, 1})},
                           {"epsilon", gb.scalar("epsilon", 1e-5)}};
  if (bias) inputs.push_back({"bias", gb.tensor("bias", {1, 4, 1, 1})});
  std::vector<Port> outputs{{"y", gb.tensor("y", x)}};
  if (inv_rms) outputs.push_back({"inv_rms", gb.tensor("inv_rms", *inv_rms)});
  gb.node("RMSNormAttributes", OpKind::rmsnorm, inputs, outputs, RmsnormParams{});
  return gb.build();
}

TEST(GraphRmsnormRules, AxesAndShapes) {
  const Dims hw{2, 4, 1, 1}, chw{2, 1, 1, 1}, bad{2, 3, 1, 1}, none{2, 4, 6, 6};
  Graph g = rmsnorm_graph(&hw, true);
  EXPECT_NO_THROW(validate_graph(g));
  EXPECT_EQ(rmsnorm_normalized_axes(g, g.nodes[0]), (std::vector<int>{2, 3}));
  g = rmsnorm_graph(&chw);
  EXPECT_NO_THROW(validate_graph(g));
  EXPECT_EQ(rmsnorm_normalized_axes(g, g.nodes[0]), (std::vector<int>{1, 2, 3}));
  g = rmsnorm_graph(nullptr);
  EXPECT_NO_THROW(validate_graph(g));
  EXPECT_EQ(rmsnorm_normalized_axes(g, g.nodes[0]), (std::vector<int>{1, 2, 3}));  // all but the batch axis
  g = rmsnorm_graph(&bad);
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].outputs.inv_rms_tensor_uid",
                     "inv_rms \"inv_rms\" has dims [2, 3, 1, 1]; expected x's dims [2, 4, 6, 6] with the "
                     "normalized axes set to 1");
  g = rmsnorm_graph(&none);
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].outputs.inv_rms_tensor_uid", "at least one axis");
  g = rmsnorm_graph(nullptr, true);
  g.tensors[3].dims = {1, 5, 1, 1};
  g.tensors[3].strides = {5, 1, 1, 1};
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.bias_tensor_uid", "does not broadcast to x");
}

// ---- reduction ----------------------------------------------------------------------------

Graph reduction_graph(const Dims& in, const Dims& out) {
  GraphBuilder gb("red");
  const auto i = gb.tensor("in", in), o = gb.tensor("out", out);
  gb.node("ReductionAttributes", OpKind::reduction, {{"in", i}}, {{"out", o}},
          ReductionParams{.mode = ReductionMode::max});
  return gb.build();
}

TEST(GraphReductionRules, Shapes) {
  Graph g = reduction_graph({2, 3, 4}, {2, 3, 1});
  EXPECT_NO_THROW(validate_graph(g));
  g = reduction_graph({2, 3, 4}, {1, 1, 1});
  EXPECT_NO_THROW(validate_graph(g));
  g = reduction_graph({2, 3, 4}, {2, 3});
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].outputs.out_tensor_uid",
                     "out \"out\" has dims [2, 3] but in \"in\" has dims [2, 3, 4]; expected the same rank");
  g = reduction_graph({2, 3, 4}, {2, 2, 1});
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].outputs.out_tensor_uid",
                     "each dim equal to in's or 1 (reduced)");
}

// ---- resample -----------------------------------------------------------------------------

Graph resample_graph(const Dims& x, const Dims& y, Dims window, Dims stride, Dims pre, Dims post) {
  GraphBuilder gb("pool");
  const auto xt = gb.tensor("x", x), yt = gb.tensor("y", y);
  ResampleParams p;
  p.window = window;
  p.stride = stride;
  p.pre_padding = pre;
  p.post_padding = post;
  gb.node("ResampleFwdAttributes", OpKind::resample, {{"x", xt}}, {{"y", yt}}, p);
  return gb.build();
}

TEST(GraphResampleRules, Shapes) {
  Graph g = resample_graph({2, 4, 9, 9}, {2, 4, 5, 5}, {3, 3}, {2, 2}, {1, 1}, {1, 1});
  EXPECT_NO_THROW(validate_graph(g));
  g = resample_graph({1, 2, 5, 5}, {1, 2, 3, 3}, {2, 2}, {2, 2}, {1, 0}, {0, 1});
  EXPECT_NO_THROW(validate_graph(g));
  g = resample_graph({1, 2, 4, 6, 6}, {1, 2, 2, 3, 3}, {2, 2, 2}, {}, {}, {});  // stride defaults to window
  validate_graph(g);
  EXPECT_EQ(g.nodes[0].as<ResampleParams>().stride, (Dims{2, 2, 2}));
}

TEST(GraphResampleRules, Errors) {
  Graph g = resample_graph({2, 4, 9, 9}, {2, 4, 4, 4}, {3, 3}, {2, 2}, {1, 1}, {1, 1});
  EXPECT_INPUT_ERROR(
      validate_graph(g), "nodes[0].outputs.y_tensor_uid",
      "y \"y\" has dims [2, 4, 4, 4]; expected [2, 4, 5, 5] (N and C of x; output size = floor((in + "
      "pre_padding + post_padding - window) / stride) + 1)");
  g = resample_graph({2, 4, 9, 9}, {2, 3, 5, 5}, {3, 3}, {2, 2}, {1, 1}, {1, 1});
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].outputs.y_tensor_uid", "expected [2, 4, 5, 5]");
  g = resample_graph({2, 4, 9, 9}, {2, 4, 5, 5}, {3}, {2, 2}, {1, 1}, {1, 1});
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].attributes.window", "window has 1 entries; expected 2");
  g = resample_graph({2, 4, 9, 9}, {2, 4, 5, 5}, {}, {2, 2}, {1, 1}, {1, 1});
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].attributes.window", "missing required key `window`");
  g = resample_graph({2, 4, 2, 9}, {2, 4, 1, 5}, {3, 3}, {2, 2}, {0, 1}, {0, 1});
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].attributes.window[0]",
                     "window 3 is larger than the padded input 2");
  g = resample_graph({2, 4, 9}, {2, 4, 5}, {3}, {2}, {1}, {1});
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.x_tensor_uid", "expected rank 4 or 5");
  g = resample_graph({2, 4, 9, 9}, {2, 4, 5, 5}, {3, 3}, {0, 2}, {1, 1}, {1, 1});
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].attributes.stride[0]", "stride must be >= 1");
}

}  // namespace
}  // namespace dnnbench
