// Reader: every field of the file format and every structural/type error, with its JSON path.
#include "graph/reader.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "graph/errors.hpp"
#include "graph/ops/op_rules.hpp"
#include "graph_test_util.hpp"

namespace dnnbench {
namespace {

using nlohmann::json;
using testing::example_conv_json;

Graph parse(const json& j) {
  return parse_graph_json(j.dump(), "g.json");
}

json pointwise_json(const std::string& op, bool binary) {
  json j = json::parse(R"({"name": "pw", "io_data_type": "float", "compute_data_type": "float",
    "intermediate_data_type": "float",
    "tensors": [
      {"uid": 1, "name": "a", "dims": [2, 3], "strides": [3, 1], "data_type": "float", "virtual": false},
      {"uid": 2, "name": "b", "dims": [2, 3], "strides": [3, 1], "data_type": "float", "virtual": false},
      {"uid": 3, "name": "c", "dims": [2, 3], "strides": [3, 1], "data_type": "float", "virtual": false}],
    "nodes": [{"name": "pw", "type": "PointwiseAttributes", "compute_data_type": "unset",
      "inputs": {"operation": "add", "relu_lower_clip": null, "relu_upper_clip": null,
                 "relu_lower_clip_slope": null, "axis_tensor_uid": null, "in_0_tensor_uid": 1,
                 "in_1_tensor_uid": 2, "in_2_tensor_uid": null, "swish_beta": null, "elu_alpha": null,
                 "softplus_beta": null},
      "outputs": {"out_0_tensor_uid": 3}}]})");
  j["nodes"][0]["inputs"]["operation"] = op;
  if (!binary) j["nodes"][0]["inputs"]["in_1_tensor_uid"] = nullptr;
  return j;
}

TEST(ReaderTest, ParsesTheFormatExample) {
  const Graph g = parse(example_conv_json());
  EXPECT_EQ(g.name, "conv_3x3_nhwc");
  EXPECT_EQ(g.io_type, DataType::f16);
  EXPECT_EQ(g.compute_type, DataType::f32);
  EXPECT_EQ(g.intermediate_type, DataType::f32);
  ASSERT_EQ(g.tensors.size(), 3u);
  const TensorDesc& x = g.tensors[0];
  EXPECT_EQ(x.uid, 1);
  EXPECT_EQ(x.name, "x");
  EXPECT_EQ(x.dims, (std::vector<std::int64_t>{8, 64, 28, 28}));
  EXPECT_EQ(x.strides, (std::vector<std::int64_t>{50176, 1, 1792, 64}));
  EXPECT_EQ(x.dtype, DataType::f16);
  EXPECT_FALSE(x.is_virtual);
  EXPECT_FALSE(x.is_by_value());
  ASSERT_EQ(g.nodes.size(), 1u);
  const Node& n = g.nodes[0];
  EXPECT_EQ(n.name, "conv");
  EXPECT_EQ(n.type, "ConvolutionFwdAttributes");
  EXPECT_EQ(n.kind, OpKind::conv_fwd);
  EXPECT_EQ(n.compute_type, DataType::f32);
  EXPECT_EQ(n.input("x"), 1);
  EXPECT_EQ(n.input("w"), 2);
  EXPECT_EQ(n.output("y"), 3);
  EXPECT_EQ(n.settings_key, "parameters");
  const auto& p = n.as<ConvParams>();
  EXPECT_TRUE(p.cross_correlation);
  EXPECT_EQ(p.pre_padding, (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(p.post_padding, (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(p.stride, (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(p.dilation, (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(g.source_path, "");
}

// Top-level keys are the file's own; an unknown key in a node is an error (UnknownKeysAre...).
TEST(ReaderTest, IgnoresUnknownTopLevelKeys) {
  json j = example_conv_json();
  j["metadata"] = {{"model", "resnet"}, {"layer", 3}};
  j["preferred_engine_id"] = 7;
  EXPECT_NO_THROW(parse(j));
}

TEST(ReaderTest, ConvolutionModeAndAttributesKey) {
  json j = example_conv_json();
  j["nodes"][0]["attributes"] = j["nodes"][0]["parameters"];
  j["nodes"][0].erase("parameters");
  j["nodes"][0]["attributes"]["conv_mode"] = "CONVOLUTION";
  const Graph g = parse(j);
  EXPECT_EQ(g.nodes[0].settings_key, "attributes");
  EXPECT_FALSE(g.nodes[0].as<ConvParams>().cross_correlation);
}

TEST(ReaderTest, ConvSettingsMayBeMissing) {
  json j = example_conv_json();
  j["nodes"][0].erase("parameters");
  const Graph g = parse(j);
  EXPECT_EQ(g.nodes[0].settings_key, "");
  EXPECT_TRUE(g.nodes[0].as<ConvParams>().stride.empty());  // validation fills the defaults
}

TEST(ReaderTest, ConvBackwardKinds) {
  json j = example_conv_json();
  j["nodes"][0]["type"] = "ConvolutionBwdAttributes";
  EXPECT_EQ(parse(j).nodes[0].kind, OpKind::conv_bwd_data);
  j["nodes"][0]["type"] = "ConvolutionWrwAttributes";
  EXPECT_EQ(parse(j).nodes[0].kind, OpKind::conv_bwd_weights);
}

TEST(ReaderTest, NodeComputeTypeUnsetOrMissingTakesTheGraphs) {
  json j = example_conv_json();
  j["compute_data_type"] = "double";
  j["nodes"][0]["compute_data_type"] = "unset";
  EXPECT_EQ(parse(j).nodes[0].compute_type, DataType::f64);
  j["nodes"][0].erase("compute_data_type");
  EXPECT_EQ(parse(j).nodes[0].compute_type, DataType::f64);
  j["nodes"][0]["compute_data_type"] = "half";
  EXPECT_EQ(parse(j).nodes[0].compute_type, DataType::f16);
}

TEST(ReaderTest, GraphTypeDefaults) {
  json j = example_conv_json();
  j.erase("compute_data_type");
  j.erase("intermediate_data_type");
  j.erase("io_data_type");
  const Graph g = parse(j);
  EXPECT_EQ(g.compute_type, DataType::f32);
  EXPECT_EQ(g.intermediate_type, DataType::f32);
  EXPECT_EQ(g.io_type, DataType::unset);
}

TEST(ReaderTest, TensorDefaults) {
  json j = example_conv_json();
  j["tensors"][0].erase("virtual");
  j["tensors"][0].erase("strides");
  j["tensors"][0].erase("data_type");
  const Graph g = parse(j);
  EXPECT_FALSE(g.tensors[0].is_virtual);
  EXPECT_EQ(g.tensors[0].strides, (std::vector<std::int64_t>{50176, 784, 28, 1}));  // packed
  EXPECT_EQ(g.tensors[0].dtype, DataType::f16);                                     // io_data_type
}

TEST(ReaderTest, VirtualTensor) {
  json j = example_conv_json();
  j["tensors"][2]["virtual"] = true;
  j["tensors"][2]["data_type"] = "unset";
  const Graph g = parse(j);
  EXPECT_TRUE(g.tensors[2].is_virtual);
  EXPECT_EQ(g.tensors[2].dtype, DataType::unset);  // resolved by validation
}

TEST(ReaderTest, ByValueScalars) {
  json j = example_conv_json();
  j["tensors"].push_back({{"uid", 4},
                          {"name", "epsilon"},
                          {"dims", {1}},
                          {"strides", {1}},
                          {"data_type", "double"},
                          {"virtual", false},
                          {"value_type", "Float64Value"},
                          {"value", 1e-5}});
  j["tensors"].push_back(
      {{"uid", 5}, {"name", "n"}, {"data_type", "int32"}, {"value_type", "Int32Value"}, {"value", 3}});
  j["tensors"].push_back({{"uid", 6}, {"name", "f"}, {"data_type", "float"}, {"value", 0.5}});
  const Graph g = parse(j);
  ASSERT_TRUE(g.tensors[3].is_by_value());
  EXPECT_DOUBLE_EQ(*g.tensors[3].scalar_value, 1e-5);
  EXPECT_DOUBLE_EQ(*g.tensors[4].scalar_value, 3.0);
  EXPECT_EQ(g.tensors[4].dims, (std::vector<std::int64_t>{1}));  // a scalar may leave out its shape
  EXPECT_DOUBLE_EQ(*g.tensors[5].scalar_value, 0.5);
}

TEST(ReaderTest, ByValueScalarErrors) {
  json j = example_conv_json();
  j["tensors"][0]["value_type"] = "ComplexValue";
  j["tensors"][0]["value"] = 1;
  EXPECT_INPUT_ERROR(parse(j), "tensors[0].value_type",
                     "unknown value_type \"ComplexValue\"; expected one of Float64Value");
  j["tensors"][0]["value_type"] = "Float32Value";
  j["tensors"][0].erase("value");
  EXPECT_INPUT_ERROR(parse(j), "tensors[0].value", "missing required key `value`");
  j["tensors"][0]["value"] = "small";
  EXPECT_INPUT_ERROR(parse(j), "tensors[0].value", "expected a number, got string \"small\"");
}

TEST(ReaderTest, NullRolesAreDroppedAndListsIndexed) {
  json j = example_conv_json();
  j["nodes"][0]["inputs"]["bias_tensor_uid"] = nullptr;
  j["nodes"][0]["inputs"]["peer_stats_tensor_uid"] = {1, nullptr, 2};
  const Graph g = parse(j);
  const Node& n = g.nodes[0];
  EXPECT_FALSE(n.input("bias"));
  EXPECT_EQ(n.input("peer_stats[0]"), 1);
  EXPECT_FALSE(n.input("peer_stats[1]"));
  EXPECT_EQ(n.input("peer_stats[2]"), 2);
  EXPECT_EQ(n.inputs.size(), 4u);
}

TEST(ReaderTest, PortErrors) {
  json j = example_conv_json();
  j["nodes"][0]["inputs"]["x_tensor_uid"] = "1";
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].inputs.x_tensor_uid",
                     "expected a tensor uid (an integer), null or a list of uids, got string \"1\"");
  j = example_conv_json();
  j["nodes"][0]["outputs"]["y_tensor_uid"] = {3, "z"};
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].outputs.y_tensor_uid[1]", "expected an integer, got string \"z\"");
  j = example_conv_json();
  j["nodes"][0].erase("inputs");
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].inputs", "missing required key `inputs`");
  j = example_conv_json();
  j["nodes"][0]["outputs"] = {3};
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].outputs", "expected an object, got an array");
}

TEST(ReaderTest, PointwiseInlineSettings) {
  json j = pointwise_json("relu_fwd", false);
  j["nodes"][0]["inputs"]["relu_lower_clip"] = -1.0;
  j["nodes"][0]["inputs"]["relu_upper_clip"] = 6;
  j["nodes"][0]["inputs"]["relu_lower_clip_slope"] = 0.1;
  const Graph g = parse(j);
  const Node& n = g.nodes[0];
  EXPECT_EQ(n.kind, OpKind::pointwise);
  EXPECT_EQ(n.compute_type, DataType::f32);
  const auto& p = n.as<PointwiseParams>();
  EXPECT_EQ(p.op, PointwiseOp::relu);
  EXPECT_EQ(p.relu_lower_clip, -1.0);
  EXPECT_EQ(p.relu_upper_clip, 6.0);
  EXPECT_EQ(p.relu_lower_clip_slope, 0.1);
  EXPECT_FALSE(p.swish_beta);
  EXPECT_EQ(n.input("in_0"), 1);
  EXPECT_FALSE(n.input("in_1"));
  EXPECT_FALSE(n.input("in_2"));
  EXPECT_FALSE(n.input("axis"));
}

TEST(ReaderTest, PointwiseEveryOtherSetting) {
  json j = pointwise_json("swish_fwd", false);
  j["nodes"][0]["inputs"]["swish_beta"] = 1.5;
  j["nodes"][0]["inputs"]["elu_alpha"] = 0.7;
  j["nodes"][0]["inputs"]["softplus_beta"] = 2;
  const Graph g = parse(j);
  const auto& p = g.nodes[0].as<PointwiseParams>();
  EXPECT_EQ(p.op, PointwiseOp::swish);
  EXPECT_EQ(p.swish_beta, 1.5);
  EXPECT_EQ(p.elu_alpha, 0.7);
  EXPECT_EQ(p.softplus_beta, 2.0);
}

TEST(ReaderTest, PointwiseSettingsUnderAttributes) {
  json j = pointwise_json("add", true);
  j["nodes"][0]["inputs"].erase("operation");
  j["nodes"][0]["attributes"] = {{"operation", "gelu_approx_tanh_fwd"}};
  EXPECT_EQ(parse(j).nodes[0].as<PointwiseParams>().op, PointwiseOp::gelu_tanh);
}

TEST(ReaderTest, PointwiseErrors) {
  EXPECT_INPUT_ERROR(parse(pointwise_json("frobnicate", true)), "nodes[0].inputs.operation",
                     "unknown pointwise operation \"frobnicate\"; expected one of add, sub, mul");
  json j = pointwise_json("add", true);
  j["nodes"][0]["inputs"].erase("operation");
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].inputs.operation", "missing required key `operation`");
  j = pointwise_json("relu_fwd", false);
  j["nodes"][0]["inputs"]["relu_lower_clip"] = "low";
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].inputs.relu_lower_clip", "expected a number, got string \"low\"");
}

TEST(ReaderTest, UnknownNodeTypeParsesAsUnsupported) {
  json j = example_conv_json();
  j["nodes"][0]["type"] = "BlockScaleQuantizeAttributes";
  j["nodes"][0]["attributes"] = {{"causal_mask", true}};
  const Graph g = parse(j);
  EXPECT_EQ(g.nodes[0].kind, OpKind::unsupported);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(g.nodes[0].params));
  EXPECT_EQ(g.nodes[0].input("x"), 1);
  EXPECT_EQ(g.unsupported_types(), (std::vector<std::string>{"BlockScaleQuantizeAttributes"}));
  EXPECT_EQ(find_op_rules("BlockScaleQuantizeAttributes"), nullptr);
}

// Not a hipDNN node type: a load error with the closest type, not a silently skipped row.
TEST(ReaderTest, MisspeltNodeTypeIsAnErrorWithASuggestion) {
  json j = example_conv_json();
  j["nodes"][0]["type"] = "ConvolutionFwdAtributes";
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].type", "did you mean \"ConvolutionFwdAttributes\"?");
  j["nodes"][0]["type"] = "Frobnicate";
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].type",
                     "expected a hipDNN node type: `BatchnormInferenceAttributes`");
  for (const auto type : hipdnn_node_types()) {
    if (find_op_rules(type)) continue;  // executed types have their own settings tests
    j["nodes"][0]["type"] = type;
    EXPECT_EQ(parse(j).nodes[0].kind, OpKind::unsupported) << type;  // known, not executed: skipped later
  }
}

// Unknown keys in tensors, nodes and settings: errors naming the key, with the closest known one.
TEST(ReaderTest, UnknownKeysAreErrorsWithASuggestion) {
  json j = example_conv_json();
  j["nodes"][0]["parameters"]["conv_mod"] = j["nodes"][0]["parameters"]["conv_mode"];
  j["nodes"][0]["parameters"].erase("conv_mode");
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].parameters.conv_mod", "did you mean `conv_mode`?");
  j = example_conv_json();
  j["tensors"][0]["strdes"] = j["tensors"][0]["strides"];
  j["tensors"][0].erase("strides");
  EXPECT_INPUT_ERROR(parse(j), "tensors[0].strdes", "did you mean `strides`?");
  j = example_conv_json();
  j["nodes"][0]["comment"] = "mine";
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].comment", "unknown key `comment` in a node (known keys: `name`");
  j = example_conv_json();
  j["nodes"][0]["inputs"]["x_tensr_uid"] = 1;
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].inputs.x_tensr_uid", "unknown key `x_tensr_uid` in inputs");
  // Pointwise settings inline in `inputs` are checked against the pointwise keys.
  j = pointwise_json("relu_fwd", false);
  j["nodes"][0]["inputs"]["relu_lower_clp"] = 0.5;
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].inputs.relu_lower_clp", "did you mean `relu_lower_clip`?");
  // Top-level keys are the file's own (the format allows `metadata` and the like).
  j = example_conv_json();
  j["metadata"] = {{"source", "a model"}};
  EXPECT_NO_THROW(parse(j));
}

TEST(ReaderTest, NodeNameDefaults) {
  json j = example_conv_json();
  j["nodes"][0].erase("name");
  EXPECT_EQ(parse(j).nodes[0].name, "ConvolutionFwdAttributes_0");
}

TEST(ReaderTest, OtherOpSettings) {
  json j = example_conv_json();
  j["nodes"][0] = json::parse(R"({"name": "r", "type": "ReductionAttributes", "inputs": {"in_tensor_uid": 1},
      "outputs": {"out_tensor_uid": 3}, "attributes": {"mode": "norm2", "is_deterministic": true}})");
  EXPECT_EQ(parse(j).nodes[0].as<ReductionParams>().mode, ReductionMode::norm2);
  j["nodes"][0] = json::parse(R"({"name": "p", "type": "ResampleFwdAttributes", "inputs": {"x_tensor_uid": 1},
      "outputs": {"y_tensor_uid": 3}, "attributes": {"window": [2, 3], "stride": [2, 1], "pre_padding": [0, 1],
      "post_padding": [1, 0], "resample_mode": "AVGPOOL_EXCLUDE_PADDING", "padding_mode": "ZERO_PAD"}})");
  const auto rp = parse(j).nodes[0].as<ResampleParams>();
  EXPECT_EQ(rp.mode, ResampleMode::avgpool_exclude_padding);
  EXPECT_EQ(rp.window, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(rp.stride, (std::vector<std::int64_t>{2, 1}));
  EXPECT_EQ(rp.pre_padding, (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(rp.post_padding, (std::vector<std::int64_t>{1, 0}));
  j["nodes"][0] = json::parse(R"({"name": "l", "type": "LayernormAttributes", "inputs": {"x_tensor_uid": 1},
      "outputs": {"y_tensor_uid": 3}, "attributes": {"normalized_dim_count": 2, "forward_phase": "TRAINING"}})");
  const auto lp = parse(j).nodes[0].as<LayernormParams>();
  EXPECT_EQ(lp.normalized_dim_count, 2);
  EXPECT_EQ(lp.phase, NormPhase::training);
  j["nodes"][0]["attributes"] = json::object();
  EXPECT_EQ(parse(j).nodes[0].as<LayernormParams>().normalized_dim_count, 1);  // documented default
  EXPECT_EQ(parse(j).nodes[0].as<LayernormParams>().phase, NormPhase::inference);
  j["nodes"][0]["type"] = "RMSNormAttributes";
  j["nodes"][0]["attributes"] = {{"forward_phase", "TRAINING"}};
  EXPECT_EQ(parse(j).nodes[0].as<RmsnormParams>().phase, NormPhase::training);
  j["nodes"][0]["type"] = "BatchnormInferenceAttributesVarianceExt";
  j["nodes"][0].erase("attributes");  // batch norm inference has no settings
  EXPECT_EQ(parse(j).nodes[0].kind, OpKind::batchnorm_inference);
  EXPECT_TRUE(parse(j).nodes[0].as<BatchnormParams>().variance_ext);
  j["nodes"][0]["type"] = "BatchnormInferenceAttributes";
  EXPECT_FALSE(parse(j).nodes[0].as<BatchnormParams>().variance_ext);
  j["nodes"][0]["type"] = "MatmulAttributes";
  EXPECT_EQ(parse(j).nodes[0].kind, OpKind::matmul);
}

TEST(ReaderTest, OpSettingErrors) {
  json j = example_conv_json();
  j["nodes"][0]["parameters"]["stride"] = {"2", 1};
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].parameters.stride[0]", "expected an integer, got string \"2\"");
  j = example_conv_json();
  j["nodes"][0]["parameters"]["dilation"] = 1;
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].parameters.dilation", "expected an array of integers, got number 1");
  j = example_conv_json();
  j["nodes"][0]["parameters"]["conv_mode"] = "DECONV";
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].parameters.conv_mode",
                     "unknown conv_mode \"DECONV\"; expected one of CROSS_CORRELATION, CONVOLUTION");
  j = example_conv_json();
  j["nodes"][0]["parameters"] = "none";
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].parameters", "expected an object, got string \"none\"");
  j = example_conv_json();
  j["nodes"][0]["attributes"] = {{"stride", {1, 1}}};
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].attributes", "both `parameters` and `attributes`");

  j = example_conv_json();
  j["nodes"][0] = json::parse(R"({"name": "r", "type": "ReductionAttributes", "inputs": {"in_tensor_uid": 1},
      "outputs": {"out_tensor_uid": 3}, "attributes": {"mode": "MEDIAN"}})");
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].attributes.mode",
                     "unknown reduction mode \"MEDIAN\"; expected one of ADD, MUL");
  j["nodes"][0]["attributes"].erase("mode");
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].attributes.mode", "missing required key `mode`");
  j["nodes"][0]["type"] = "LayernormAttributes";
  j["nodes"][0]["attributes"] = {{"normalized_dim_count", "two"}};
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].attributes.normalized_dim_count",
                     "expected an integer, got string \"two\"");
  j["nodes"][0]["attributes"] = {{"forward_phase", "BACKWARD"}};
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].attributes.forward_phase",
                     "unknown forward_phase \"BACKWARD\"; expected one of INFERENCE, TRAINING");
  j["nodes"][0]["type"] = "ResampleFwdAttributes";
  j["nodes"][0]["attributes"] = {{"resample_mode", "MEDIANPOOL"}};
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].attributes.resample_mode",
                     "expected one of MAXPOOL, AVGPOOL_INCLUDE_PADDING");
  j["nodes"][0]["attributes"] = {{"window", {2, 2.5}}};
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].attributes.window[1]", "expected an integer, got number 2.5");
}

TEST(ReaderTest, TopLevelErrors) {
  EXPECT_INPUT_ERROR(parse_graph_json("", "g.json"), "", "the file is empty");
  EXPECT_INPUT_ERROR(parse_graph_json("[1, 2]", "g.json"), "",
                     "expected a JSON object at the top level, got an array");
  json j = example_conv_json();
  j.erase("name");
  EXPECT_INPUT_ERROR(parse(j), "name", "missing required key `name`");
  j = example_conv_json();
  j["name"] = 5;
  EXPECT_INPUT_ERROR(parse(j), "name", "expected a string, got number 5");
  j = example_conv_json();
  j.erase("tensors");
  EXPECT_INPUT_ERROR(parse(j), "tensors", "missing required key `tensors`");
  j = example_conv_json();
  j["tensors"] = {{"uid", 1}};
  EXPECT_INPUT_ERROR(parse(j), "tensors", "expected an array of tensor objects, got an object");
  j = example_conv_json();
  j.erase("nodes");
  EXPECT_INPUT_ERROR(parse(j), "nodes", "missing required key `nodes`");
  j = example_conv_json();
  j["nodes"] = "conv";
  EXPECT_INPUT_ERROR(parse(j), "nodes", "expected an array of node objects");
  j = example_conv_json();
  j["io_data_type"] = "float128";
  EXPECT_INPUT_ERROR(parse(j), "io_data_type", "unknown data type \"float128\"; expected one of float, half");
}

TEST(ReaderTest, ParseErrorsGiveLineAndColumn) {
  EXPECT_INPUT_ERROR(parse_graph_json("{\n  \"name\": \"g\",\n  \"tensors\": [1,,]\n}", "g.json"), "",
                     "invalid JSON at line 3, column 17");
  EXPECT_INPUT_ERROR(parse_graph_json("{\"name\": \"g\"", "g.json"), "", "invalid JSON at line 1");
  EXPECT_INPUT_ERROR(parse_graph_json("{\"name\": \"g\"", "g.json"), "", "unexpected end of input");
  EXPECT_INPUT_ERROR(parse_graph_json("\n\n  x", "g.json"), "", "invalid JSON at line 3, column 3");
}

TEST(ReaderTest, TensorErrors) {
  json j = example_conv_json();
  j["tensors"][2]["dims"][1] = "a";
  EXPECT_INPUT_ERROR(parse(j), "tensors[2].dims[1]", "expected an integer, got string \"a\"");
  j = example_conv_json();
  j["tensors"][1] = 7;
  EXPECT_INPUT_ERROR(parse(j), "tensors[1]", "expected an object, got number 7");
  j = example_conv_json();
  j["tensors"][0]["uid"] = "one";
  EXPECT_INPUT_ERROR(parse(j), "tensors[0].uid", "expected an integer, got string \"one\"");
  j = example_conv_json();
  j["tensors"][0]["uid"] = 1.5;
  EXPECT_INPUT_ERROR(parse(j), "tensors[0].uid", "expected an integer, got number 1.5");
  j = example_conv_json();
  j["tensors"][0]["uid"] = 18446744073709551615ull;
  EXPECT_INPUT_ERROR(parse(j), "tensors[0].uid", "does not fit in 64 bits");
  j = example_conv_json();
  j["tensors"][0].erase("uid");
  EXPECT_INPUT_ERROR(parse(j), "tensors[0].uid", "missing required key `uid`");
  j = example_conv_json();
  j["tensors"][0].erase("name");
  EXPECT_INPUT_ERROR(parse(j), "tensors[0].name", "missing required key `name`");
  j = example_conv_json();
  j["tensors"][0].erase("dims");
  EXPECT_INPUT_ERROR(parse(j), "tensors[0].dims", "missing required key `dims`");
  j = example_conv_json();
  j["tensors"][0]["dims"] = "8x64";
  EXPECT_INPUT_ERROR(parse(j), "tensors[0].dims", "expected an array of integers, got string \"8x64\"");
  j = example_conv_json();
  j["tensors"][0]["strides"][3] = nullptr;
  EXPECT_INPUT_ERROR(parse(j), "tensors[0].strides[3]", "expected an integer, got null");
  j = example_conv_json();
  j["tensors"][0]["virtual"] = "no";
  EXPECT_INPUT_ERROR(parse(j), "tensors[0].virtual", "expected a boolean (true or false), got string \"no\"");
  j = example_conv_json();
  j["tensors"][0]["data_type"] = "quarter";
  EXPECT_INPUT_ERROR(parse(j), "tensors[0].data_type", "unknown data type \"quarter\"");
  j = example_conv_json();
  j["tensors"][0]["name"] = std::string(100, 'n');
  j["tensors"][0]["dims"][0] = std::string(100, 'd');
  EXPECT_INPUT_ERROR(parse(j), "tensors[0].dims[0]", "...");  // long values are shortened
}

TEST(ReaderTest, NodeErrors) {
  json j = example_conv_json();
  j["nodes"][0] = "conv";
  EXPECT_INPUT_ERROR(parse(j), "nodes[0]", "expected an object, got string \"conv\"");
  j = example_conv_json();
  j["nodes"][0].erase("type");
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].type", "missing required key `type`");
  j = example_conv_json();
  j["nodes"][0]["type"] = 3;
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].type", "expected a string, got number 3");
  j = example_conv_json();
  j["nodes"][0]["compute_data_type"] = "fp99";
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].compute_data_type", "unknown data type \"fp99\"");
  j = example_conv_json();
  j["nodes"][0]["name"] = false;
  EXPECT_INPUT_ERROR(parse(j), "nodes[0].name", "expected a string, got boolean false");
}

TEST(ReaderTest, ErrorsNameTheFile) {
  json j = example_conv_json();
  j["tensors"][2]["dims"][1] = "a";
  try {
    parse_graph_json(j.dump(), "dir/graph.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "dir/graph.json");
    EXPECT_EQ(std::string(e.what()),
              "dir/graph.json: at tensors[2].dims[1]: expected an integer, got string \"a\"");
  }
}

TEST(ReaderTest, ReadsFiles) {
  const auto dir = std::filesystem::temp_directory_path() / "dnnbench_reader_test";
  std::filesystem::create_directories(dir);
  const auto path = dir / "conv.json";
  std::ofstream(path) << example_conv_json().dump(2);
  const Graph g = read_graph_file(path);
  EXPECT_EQ(g.source_path, path.string());
  EXPECT_EQ(g.name, "conv_3x3_nhwc");
  EXPECT_INPUT_ERROR(read_graph_file(dir / "missing.json"), "", "cannot open the file");
  EXPECT_INPUT_ERROR(read_graph_file(dir), "", "is a directory");
  std::ofstream(path) << "{\"name\": ";
  try {
    read_graph_file(path);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path.string());
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dnnbench
