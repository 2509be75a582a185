// ONNX models -> graphs: every layer kind of a small CNN, fusion, a repeated layer, a symbolic
// dimension, an unsupported op, a transformer block with SDPA recognition, the Attention op and
// malformed models. The models are written in the tests (tests/support/onnx_builder.hpp).
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "../input/import_test_util.hpp"
#include "../support/onnx_builder.hpp"
#include "input/manifest.hpp"

namespace dnnbench::testing {
namespace {

namespace fs = std::filesystem;

class OnnxImport : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "dnnbench-onnx-XXXXXX").string();
    dir_ = mkdtemp(pattern.data());
  }
  void TearDown() override { fs::remove_all(dir_); }
  static ImportOptions dims(std::map<std::string, std::int64_t> d) { return ImportOptions{std::move(d)}; }
  // The manifest entry whose sources include `node`.
  // The node name by pointer: g++ 13 reads a std::string temporary bound to a reference
  // parameter as one the returned reference might dangle on (-Wdangling-reference).
  static const ManifestGraph& entry_with(const Manifest& m, const char* node) {
    for (const auto& g : m.graphs)
      for (const auto& s : g.sources)
        if (s.find(std::string(":") + node) != std::string::npos) return g;
    throw std::runtime_error(std::string("no graph from ") + node);
  }
  fs::path dir_;
};

TEST_F(OnnxImport, SmallCnnEveryLayerKindFusedAndCounted) {
  const auto model = dir_ / "cnn.onnx";
  write_small_cnn(model);
  const auto result = import_onnx_file(model, dims({{"N", 2}}));
  const Manifest m = build_manifest({{model.string(), result}});
  ASSERT_EQ(m.graphs.size(), 9u);
  std::int64_t layers = 0;
  for (const auto& g : m.graphs) {
    round_trip(g.graph);
    layers += g.count;
  }
  EXPECT_EQ(layers, 10);

  // conv + bias + relu fused.
  const Graph conv1 = round_trip(entry_with(m, "conv1").graph);
  ASSERT_EQ(conv1.nodes.size(), 3u);
  EXPECT_EQ(conv1.nodes[0].kind, OpKind::conv_fwd);
  EXPECT_EQ(conv1.nodes[2].as<PointwiseParams>().op, PointwiseOp::relu);
  EXPECT_EQ(dims_of(conv1, "x"), (std::vector<std::int64_t>{2, 3, 32, 32}));
  EXPECT_EQ(entry_with(m, "conv1").sources[0], model.string() + ":conv1+relu1");
  // conv + bias + residual add + relu.
  const Graph conv2 = round_trip(entry_with(m, "conv2").graph);
  ASSERT_EQ(conv2.nodes.size(), 4u);
  EXPECT_EQ(conv2.nodes[2].as<PointwiseParams>().op, PointwiseOp::add);
  // conv3 and conv4 are the same layer: one graph, count 2.
  const auto& repeated = entry_with(m, "conv3");
  EXPECT_EQ(repeated.count, 2);
  EXPECT_EQ(&repeated, &entry_with(m, "conv4"));
  EXPECT_GT(repeated.flops, 2.0 * 16 * 16 * 16 * 16 * 9 * 2 - 1);

  EXPECT_EQ(round_trip(entry_with(m, "pool1").graph).nodes[0].as<ResampleParams>().mode,
            ResampleMode::maxpool);
  EXPECT_EQ(round_trip(entry_with(m, "bn").graph).nodes[0].type, "BatchnormInferenceAttributesVarianceExt");
  const Graph up = round_trip(entry_with(m, "up").graph);
  EXPECT_EQ(up.nodes[0].kind, OpKind::conv_bwd_data);
  EXPECT_EQ(dims_of(up, "dx"), (std::vector<std::int64_t>{2, 8, 32, 32}));
  EXPECT_EQ(round_trip(entry_with(m, "pool2").graph).nodes[0].as<ResampleParams>().mode,
            ResampleMode::avgpool_exclude_padding);
  EXPECT_EQ(dims_of(round_trip(entry_with(m, "gap").graph), "y"), (std::vector<std::int64_t>{2, 8, 1, 1}));
  const Graph fc = round_trip(entry_with(m, "fc").graph);
  EXPECT_EQ(fc.nodes[0].kind, OpKind::matmul);
  EXPECT_EQ(dims_of(fc, "b"), (std::vector<std::int64_t>{8, 10}));
  EXPECT_EQ(tensor_named(fc, "b").strides, (std::vector<std::int64_t>{1, 8}));  // transB
  EXPECT_EQ(fc.nodes.size(), 2u);                                               // + bias

  // Flatten and Softmax are listed with the op and the node name.
  ASSERT_EQ(m.not_imported.size(), 2u);
  EXPECT_EQ(m.not_imported[0].op, "Flatten");
  EXPECT_EQ(m.not_imported[0].source, model.string() + ":flatten");
  EXPECT_EQ(m.not_imported[1].op, "Softmax");
  EXPECT_NE(m.not_imported[1].reason.find("softmax"), std::string::npos);
}

TEST_F(OnnxImport, SymbolicDimensionWithoutValueNamesIt) {
  const auto model = dir_ / "cnn.onnx";
  write_small_cnn(model);
  const std::string error = IMPORT_ERROR(import_onnx_file(model, {}));
  EXPECT_NE(error.find("symbol `N`"), std::string::npos) << error;
  EXPECT_NE(error.find("--dim N=VALUE"), std::string::npos) << error;
  // A different value changes the shapes.
  const auto eight = import_onnx_file(model, dims({{"N", 8}}));
  EXPECT_EQ(round_trip(eight.graphs[0].graph).tensors[0].dims[0], 8);
}

TEST_F(OnnxImport, TransformerBlockWithSdpa) {
  const auto model = dir_ / "block.onnx";
  write_transformer_block(model);
  const Manifest m = build_manifest({{model.string(), import_onnx_file(model, dims({{"B", 2}, {"S", 16}}))}});
  for (const auto& g : m.graphs) round_trip(g.graph);
  ASSERT_EQ(m.graphs.size(), 6u);
  EXPECT_EQ(entry_with(m, "ln1").count, 2);
  EXPECT_EQ(entry_with(m, "q_proj").count, 4);  // q, k, v and output projections
  EXPECT_EQ(entry_with(m, "residual1").count, 2);
  const Graph sdpa = round_trip(entry_with(m, "scores").graph);
  ASSERT_EQ(sdpa.nodes.size(), 1u);
  EXPECT_EQ(sdpa.nodes[0].type, "SdpaAttributes");
  EXPECT_EQ(dims_of(sdpa, "q"), (std::vector<std::int64_t>{2, 4, 16, 16}));
  EXPECT_EQ(dims_of(sdpa, "k"), (std::vector<std::int64_t>{2, 4, 16, 16}));
  EXPECT_EQ(entry_with(m, "scores").graph["nodes"][0]["attributes"]["attn_scale_value"], 0.25);
  EXPECT_EQ(entry_with(m, "scores").sources[0], model.string() + ":scores+scale_scores+attn_softmax+context");
  const Graph fc1 = round_trip(entry_with(m, "fc1").graph);
  ASSERT_EQ(fc1.nodes.size(), 3u);  // matmul + bias + relu
  EXPECT_EQ(fc1.nodes[2].as<PointwiseParams>().op, PointwiseOp::relu);
  std::int64_t layers = 0;
  for (const auto& g : m.graphs) layers += g.count;
  EXPECT_EQ(layers, 11);
  EXPECT_EQ(m.not_imported.size(), 8u);  // reshapes and transposes
}

TEST_F(OnnxImport, AttentionOpIsSdpa) {
  const auto model = dir_ / "attention.onnx";
  write_attention_op(model);
  const auto r = import_onnx_file(model, {});
  ASSERT_EQ(r.graphs.size(), 1u);
  const Graph g = round_trip(r.graphs[0].graph);
  EXPECT_EQ(g.nodes[0].type, "SdpaAttributes");
  EXPECT_EQ(r.graphs[0].graph["nodes"][0]["attributes"]["causal_mask"], true);
  EXPECT_NEAR(r.graphs[0].graph["nodes"][0]["attributes"]["attn_scale_value"].get<double>(), 0.25, 1e-6);
}

TEST_F(OnnxImport, GeluWrittenWithErfFusesIntoTheMatmul) {
  // torch.onnx.export before opset 20: x * 0.5 * (1 + erf(x / sqrt(2))), in torch's order.
  OnnxModelBuilder b("gelu");
  b.input("x", {std::int64_t{8}, std::int64_t{32}});
  b.weight("w", {32, 64});
  b.weight("bias", {64});
  b.float_scalar("sqrt2", 1.4142135f);
  b.float_scalar("one", 1.0f);
  b.float_scalar("half", 0.5f);
  b.node("MatMul", "fc", {"x", "w"}, {"mm"});
  b.node("Add", "fc_bias", {"mm", "bias"}, {"h"});
  b.node("Div", "gelu_div", {"h", "sqrt2"}, {"d"});
  b.node("Erf", "gelu_erf", {"d"}, {"e"});
  b.node("Add", "gelu_add", {"e", "one"}, {"a"});
  b.node("Mul", "gelu_mul", {"h", "a"}, {"m"});
  b.node("Mul", "gelu_half", {"m", "half"}, {"y"});
  b.output("y");
  b.write(dir_ / "gelu.onnx");
  const auto r = import_onnx_file(dir_ / "gelu.onnx", {});
  ASSERT_EQ(r.graphs.size(), 1u);
  EXPECT_TRUE(r.not_imported.empty());
  const Graph g = round_trip(r.graphs[0].graph);
  ASSERT_EQ(g.nodes.size(), 3u);
  EXPECT_EQ(g.nodes[2].as<PointwiseParams>().op, PointwiseOp::gelu);
  EXPECT_EQ(r.graphs[0].source,
            (dir_ / "gelu.onnx").string() + ":fc+fc_bias+gelu_div+gelu_erf+gelu_add+gelu_mul+gelu_half");
}

TEST_F(OnnxImport, MalformedModels) {
  std::ofstream(dir_ / "junk.onnx") << "this is not a protobuf";
  EXPECT_NE(IMPORT_ERROR(import_onnx_file(dir_ / "junk.onnx", {})).find("not an ONNX model"),
            std::string::npos);
  EXPECT_NE(IMPORT_ERROR(import_onnx_file(dir_ / "missing.onnx", {})).find("cannot open"), std::string::npos);
  // A model with an op of an unknown domain and an integer tensor: both listed, nothing thrown.
  OnnxModelBuilder b("odd");
  b.input("x", {std::int64_t{4}, std::int64_t{4}});
  b.input("i", {std::int64_t{4}}, onnx::TensorProto_DataType_INT64);
  b.node("Relu", "relu", {"x"}, {"y"});
  b.node("Neg", "neg_int", {"i"}, {"j"});
  b.node("FancyOp", "fancy", {"y"}, {"z"}).text("mode", "x");
  b.model().mutable_graph()->mutable_node(2)->set_domain("com.example");
  b.output("z");
  b.output("j", onnx::TensorProto_DataType_INT64);
  b.write(dir_ / "odd.onnx");
  const auto r = import_onnx_file(dir_ / "odd.onnx", {});
  EXPECT_EQ(r.graphs.size(), 1u);
  ASSERT_EQ(r.not_imported.size(), 2u);
  EXPECT_NE(r.not_imported[0].reason.find("INT64"), std::string::npos);
  EXPECT_NE(r.not_imported[1].reason.find("com.example"), std::string::npos);
}

}  // namespace
}  // namespace dnnbench::testing
