// The ONNX import options the real-workload collection uses (docs/import.md): --dtype retypes fp32
// data tensors (batch-norm statistics stay fp32), --layout nhwc stores convolution tensors
// channels-last, --backward adds the gradients' graphs (conv dgrad and wgrad, matmul dA and dB,
// SDPA backward), attention is recognised with casts around the softmax and in the grouped-query
// form written with broadcasting, and RMSNorm's decomposition is one RMSNorm graph. Every graph reads back
// and validates.
#include <gtest/gtest.h>

#include "../input/import_test_util.hpp"
#include "../support/onnx_builder.hpp"
#include "input/manifest.hpp"

namespace dnnbench::testing {
namespace {

namespace fs = std::filesystem;

class OnnxWorkloadOptions : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "dnnbench-onnx-XXXXXX").string();
    dir_ = mkdtemp(pattern.data());
  }
  void TearDown() override { fs::remove_all(dir_); }
  // The imported graph whose source is exactly `source` (after the model's path and ':').
  static const ImportedGraph& from(const ImportResult& r, const fs::path& model, const std::string& source) {
    for (const auto& g : r.graphs)
      if (g.source == model.string() + ":" + source) return g;
    throw std::runtime_error("no graph from " + source);
  }
  static std::size_t count_from(const ImportResult& r, const fs::path& model, const std::string& source) {
    std::size_t n = 0;
    for (const auto& g : r.graphs) n += g.source == model.string() + ":" + source;
    return n;
  }
  fs::path dir_;
};

TEST_F(OnnxWorkloadOptions, DtypeRetypesDataTensorsButNotBatchNormStatistics) {
  const auto model = dir_ / "cnn.onnx";
  write_small_cnn(model);
  ImportOptions options{{{"N", 2}}};
  options.float_type = DataType::bf16;
  const auto r = import_onnx_file(model, options);
  const Graph conv = round_trip(from(r, model, "conv1+relu1").graph);
  EXPECT_EQ(tensor_named(conv, "x").dtype, DataType::bf16);
  EXPECT_EQ(tensor_named(conv, "w").dtype, DataType::bf16);
  EXPECT_EQ(tensor_named(conv, "y").dtype, DataType::bf16);
  const Graph bn = round_trip(from(r, model, "bn").graph);
  EXPECT_EQ(tensor_named(bn, "x").dtype, DataType::bf16);
  EXPECT_EQ(tensor_named(bn, "mean").dtype, DataType::f32);
  EXPECT_EQ(tensor_named(bn, "scale").dtype, DataType::f32);
  EXPECT_EQ(round_trip(from(r, model, "fc").graph).tensors[0].dtype, DataType::bf16);
}

TEST_F(OnnxWorkloadOptions, ChannelsLastLayoutForConvolutionTensors) {
  const auto model = dir_ / "cnn.onnx";
  write_small_cnn(model);
  ImportOptions options{{{"N", 2}}};
  options.channels_last = true;
  const auto r = import_onnx_file(model, options);
  const Graph conv = round_trip(from(r, model, "conv2+add2+relu2").graph);
  // x [2, 16, 16, 16] NHWC: C fastest, then W, H, N.
  EXPECT_EQ(tensor_named(conv, "x").strides, (std::vector<std::int64_t>{4096, 1, 256, 16}));
  EXPECT_EQ(tensor_named(conv, "w").strides, (std::vector<std::int64_t>{144, 1, 48, 16}));  // KRSC
  EXPECT_EQ(tensor_named(conv, "residual").strides, tensor_named(conv, "x").strides);
  EXPECT_EQ(tensor_named(conv, "y").strides, tensor_named(conv, "x").strides);
  EXPECT_EQ(tensor_named(conv, "bias").strides, (std::vector<std::int64_t>{16, 1, 1, 1}));
  const Graph pool = round_trip(from(r, model, "pool1").graph);
  EXPECT_EQ(tensor_named(pool, "x").strides[1], 1);
  // Matmuls keep their layout.
  const Graph fc = round_trip(from(r, model, "fc").graph);
  EXPECT_EQ(tensor_named(fc, "a").strides, (std::vector<std::int64_t>{8, 1}));
}

TEST_F(OnnxWorkloadOptions, BackwardAddsConvolutionAndMatmulGradients) {
  const auto model = dir_ / "cnn.onnx";
  write_small_cnn(model);
  ImportOptions options{{{"N", 2}}};
  options.backward = true;
  const auto r = import_onnx_file(model, options);
  for (const auto& g : r.graphs) round_trip(g.graph);
  // conv1 reads the model's input: no data gradient, a weight gradient.
  EXPECT_EQ(count_from(r, model, "conv1#dgrad"), 0u);
  const Graph w1 = round_trip(from(r, model, "conv1#wgrad").graph);
  EXPECT_EQ(w1.nodes[0].kind, OpKind::conv_bwd_weights);
  EXPECT_EQ(dims_of(w1, "dw"), (std::vector<std::int64_t>{16, 3, 3, 3}));
  EXPECT_EQ(dims_of(w1, "dy"), (std::vector<std::int64_t>{2, 16, 32, 32}));
  const Graph d2 = round_trip(from(r, model, "conv2#dgrad").graph);
  EXPECT_EQ(d2.nodes.size(), 1u);
  EXPECT_EQ(d2.nodes[0].kind, OpKind::conv_bwd_data);
  EXPECT_EQ(dims_of(d2, "dx"), (std::vector<std::int64_t>{2, 16, 16, 16}));
  EXPECT_EQ(round_trip(from(r, model, "conv2#wgrad").graph).nodes[0].kind, OpKind::conv_bwd_weights);
  // Gemm fc, a [2, 8] x b [8, 10] stored transposed (transB): dA = dC bᵀ, dB = aᵀ dC stored as b.
  const Graph da = round_trip(from(r, model, "fc#dgrad").graph);
  EXPECT_EQ(dims_of(da, "dc"), (std::vector<std::int64_t>{2, 10}));
  EXPECT_EQ(dims_of(da, "b"), (std::vector<std::int64_t>{10, 8}));
  EXPECT_EQ(dims_of(da, "da"), (std::vector<std::int64_t>{2, 8}));
  const Graph db = round_trip(from(r, model, "fc#wgrad").graph);
  EXPECT_EQ(dims_of(db, "a"), (std::vector<std::int64_t>{8, 2}));
  EXPECT_EQ(dims_of(db, "db"), (std::vector<std::int64_t>{8, 10}));
  EXPECT_EQ(tensor_named(db, "db").strides, (std::vector<std::int64_t>{1, 8}));  // as b is stored
  // The forward graphs are unchanged by --backward.
  const auto forward = import_onnx_file(model, ImportOptions{{{"N", 2}}});
  EXPECT_EQ(from(r, model, "conv1+relu1").graph, from(forward, model, "conv1+relu1").graph);
  // 9 forward graphs; conv2, conv3 and conv4 have the same shapes, so one dgrad and one wgrad for
  // the three, conv1's wgrad, fc's two (the transposed conv has no backward graph): 14.
  const Manifest m = build_manifest({{model.string(), r}});
  EXPECT_EQ(m.graphs.size(), 14u);
}

TEST_F(OnnxWorkloadOptions, BatchedWeightGradientSumsOverTheRows) {
  const auto model = dir_ / "block.onnx";
  write_transformer_block(model);
  ImportOptions options{{{"B", 2}, {"S", 16}}};
  options.backward = true;
  const auto r = import_onnx_file(model, options);
  for (const auto& g : r.graphs) round_trip(g.graph);
  // q_proj: h [2, 16, 64] x w [64, 64]: dW = hᵀ dC over the 32 rows.
  const Graph dw = round_trip(from(r, model, "q_proj#wgrad").graph);
  EXPECT_EQ(dims_of(dw, "a"), (std::vector<std::int64_t>{64, 32}));
  EXPECT_EQ(tensor_named(dw, "a").strides, (std::vector<std::int64_t>{1, 64}));
  EXPECT_EQ(dims_of(dw, "dc"), (std::vector<std::int64_t>{32, 64}));
  EXPECT_EQ(dims_of(dw, "db"), (std::vector<std::int64_t>{64, 64}));
  const Graph dx = round_trip(from(r, model, "q_proj#dgrad").graph);
  EXPECT_EQ(dims_of(dx, "da"), (std::vector<std::int64_t>{2, 16, 64}));
  // The attention's backward.
  const Graph sdpa = round_trip(from(r, model, "scores#sdpa_bwd").graph);
  EXPECT_EQ(sdpa.nodes[0].kind, OpKind::sdpa_bwd);
  EXPECT_EQ(dims_of(sdpa, "stats"), (std::vector<std::int64_t>{2, 4, 16, 1}));
  EXPECT_EQ(tensor_named(sdpa, "stats").dtype, DataType::f32);
}

// Llama's grouped-query attention written with broadcasting, softmax in fp32 between casts:
// q [1, 2, 4, 8, 16] (2 KV heads x 4 query heads each), k and v [1, 2, 1, 32, 16].
TEST_F(OnnxWorkloadOptions, GroupedQueryAttentionWithCastsIsOneSdpa) {
  const auto model = dir_ / "gqa.onnx";
  OnnxModelBuilder m("gqa");
  m.input("q", {std::int64_t{1}, std::int64_t{2}, std::int64_t{4}, std::int64_t{8}, std::int64_t{16}});
  m.input("kt", {std::int64_t{1}, std::int64_t{2}, std::int64_t{1}, std::int64_t{16}, std::int64_t{32}});
  m.input("v", {std::int64_t{1}, std::int64_t{2}, std::int64_t{1}, std::int64_t{32}, std::int64_t{16}});
  m.node("MatMul", "scores", {"q", "kt"}, {"s"});
  m.float_scalar("scale", 0.25f);
  m.node("Mul", "scaled", {"s", "scale"}, {"ss"});
  m.node("Cast", "to_fp32", {"ss"}, {"sf"}).integer("to", onnx::TensorProto_DataType_FLOAT);
  m.node("Softmax", "softmax", {"sf"}, {"p"}).integer("axis", -1);
  m.node("Cast", "back", {"p"}, {"pc"}).integer("to", onnx::TensorProto_DataType_FLOAT);
  m.node("MatMul", "context", {"pc", "v"}, {"o"});
  m.output("o");
  m.write(model);
  ImportOptions options;
  options.backward = true;
  options.float_type = DataType::f16;
  const auto r = import_onnx_file(model, options);
  ASSERT_EQ(r.graphs.size(), 2u);
  EXPECT_EQ(r.graphs[0].source, model.string() + ":scores+scaled+to_fp32+softmax+back+context");
  const Graph fwd = round_trip(r.graphs[0].graph);
  EXPECT_EQ(fwd.nodes[0].kind, OpKind::sdpa_fwd);
  EXPECT_EQ(dims_of(fwd, "q"), (std::vector<std::int64_t>{1, 8, 8, 16}));
  EXPECT_EQ(dims_of(fwd, "k"), (std::vector<std::int64_t>{1, 2, 32, 16}));
  EXPECT_EQ(dims_of(fwd, "v"), (std::vector<std::int64_t>{1, 2, 32, 16}));
  EXPECT_EQ(dims_of(fwd, "o"), (std::vector<std::int64_t>{1, 8, 8, 16}));
  EXPECT_EQ(tensor_named(fwd, "q").dtype, DataType::f16);
  const Graph bwd = round_trip(r.graphs[1].graph);
  EXPECT_EQ(bwd.nodes[0].kind, OpKind::sdpa_bwd);
  EXPECT_EQ(dims_of(bwd, "dk"), (std::vector<std::int64_t>{1, 2, 32, 16}));
  EXPECT_EQ(r.graphs[1].source, model.string() + ":scores#sdpa_bwd");
}

// RMSNorm as torch.onnx.export writes Llama's (opset 17): weight * (x * 1 / sqrt(mean(x^2) + eps)).
TEST_F(OnnxWorkloadOptions, RmsNormPatternIsOneRmsNormGraph) {
  const auto model = dir_ / "rmsnorm.onnx";
  OnnxModelBuilder m("rmsnorm");
  m.input("x", {std::int64_t{2}, std::int64_t{8}, std::int64_t{64}});
  m.input("weight", {std::int64_t{64}});
  m.float_scalar("two", 2.0f);
  m.float_scalar("eps", 1e-5f);
  m.float_scalar("one", 1.0f);
  m.node("Pow", "pow", {"x", "two"}, {"sq"});
  m.node("ReduceMean", "mean", {"sq"}, {"ms"}).ints("axes", {-1}).integer("keepdims", 1);
  m.node("Add", "add_eps", {"ms", "eps"}, {"mse"});
  m.node("Sqrt", "sqrt", {"mse"}, {"rms"});
  m.node("Div", "inverse", {"one", "rms"}, {"inv"});
  m.node("Mul", "normalize", {"x", "inv"}, {"n"});
  m.node("Mul", "scale", {"weight", "n"}, {"y"});
  m.node("Relu", "after", {"y"}, {"z"});
  m.output("z");
  m.write(model);
  ImportOptions options;
  options.float_type = DataType::bf16;
  const auto r = import_onnx_file(model, options);
  ASSERT_EQ(r.graphs.size(), 2u);  // the norm, and the Relu after it
  EXPECT_EQ(r.graphs[0].source, model.string() + ":pow+mean+add_eps+sqrt+inverse+normalize+scale");
  const Graph g = round_trip(r.graphs[0].graph);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].kind, OpKind::rmsnorm);
  EXPECT_EQ(dims_of(g, "x"), (std::vector<std::int64_t>{2, 8, 64}));
  EXPECT_EQ(dims_of(g, "scale"), (std::vector<std::int64_t>{64}));
  EXPECT_EQ(tensor_named(g, "x").dtype, DataType::bf16);
  EXPECT_NEAR(*tensor_named(g, "epsilon").scalar_value, 1e-5, 1e-9);
  // Squaring for another reason stays a pointwise graph.
  OnnxModelBuilder other("square");
  other.input("x", {std::int64_t{4}, std::int64_t{4}});
  other.float_scalar("two", 2.0f);
  other.node("Pow", "pow", {"x", "two"}, {"y"});
  other.output("y");
  other.write(dir_ / "square.onnx");
  const auto plain = import_onnx_file(dir_ / "square.onnx", {});
  ASSERT_EQ(plain.graphs.size(), 1u);
  EXPECT_EQ(round_trip(plain.graphs[0].graph).nodes[0].kind, OpKind::pointwise);
}

}  // namespace
}  // namespace dnnbench::testing
