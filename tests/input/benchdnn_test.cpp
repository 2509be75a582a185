// benchdnn descriptors and batch files -> graphs: the descriptor fields and implicit rules of
// each driver, options and their lists, batch files, and errors naming file and line.
#include <gtest/gtest.h>

#include <fstream>

#include "import_test_util.hpp"
#include "input/benchdnn.hpp"

namespace dnnbench::testing {
namespace {

namespace fs = std::filesystem;

class Benchdnn : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "dnnbench-benchdnn-XXXXXX").string();
    dir_ = mkdtemp(pattern.data());
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  ImportResult import(const std::string& text) { return import_benchdnn_file(write("batch.txt", text)); }
  Graph only(const std::string& text) {
    const auto r = import(text);
    EXPECT_EQ(r.graphs.size(), 1u) << text;
    EXPECT_TRUE(r.not_imported.empty()) << (r.not_imported.empty() ? "" : r.not_imported[0].reason);
    return round_trip(r.graphs.at(0).graph);
  }
  fs::path dir_;
};

TEST_F(Benchdnn, ConvDescriptorWithImplicitWidthAndOutput) {
  // benchdnn's default direction is FWD_B: a conv plus a bias add.
  const Graph g = only("--conv mb32ic64ih56oc64oh56kh3ph1n\"resnet:res2a\"");
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].kind, OpKind::conv_fwd);
  EXPECT_EQ(dims_of(g, "x"), (std::vector<std::int64_t>{32, 64, 56, 56}));
  EXPECT_EQ(dims_of(g, "w"), (std::vector<std::int64_t>{64, 64, 3, 3}));
  EXPECT_EQ(dims_of(g, "y"), (std::vector<std::int64_t>{32, 64, 56, 56}));
  EXPECT_NE(g.name.find("resnet:res2a"), std::string::npos);
}

TEST_F(Benchdnn, ConvOutputAndPaddingInferred) {
  // No padding given: the one that makes oh56 from ih56 with a 3x3 kernel, pad 1.
  const Graph padded = only("--conv --dir=FWD_D mb2ic8ih56oc8oh56kh3");
  EXPECT_EQ(padded.nodes[0].as<ConvParams>().pre_padding, (std::vector<std::int64_t>{1, 1}));
  // No output given: computed, stride 2.
  const Graph strided = only("--conv --dir=FWD_D ic8ih56oc16kh3sh2ph1");
  EXPECT_EQ(dims_of(strided, "y"), (std::vector<std::int64_t>{2, 16, 28, 28}));  // mb defaults to 2
  // Underscores are ignored; w fields given explicitly.
  const Graph rect = only("--conv --dir=FWD_D mb1_ic4_ih8iw12_oc4_kh1kw3_pw1");
  EXPECT_EQ(dims_of(rect, "y"), (std::vector<std::int64_t>{1, 4, 8, 12}));
}

TEST_F(Benchdnn, ConvGroupsDilation3dAndDirections) {
  const Graph g = only("--conv --dir=FWD_D g4mb2ic32ih14oc64oh14kh3ph2dh1");
  EXPECT_EQ(dims_of(g, "w"), (std::vector<std::int64_t>{64, 8, 3, 3}));
  EXPECT_EQ(g.nodes[0].as<ConvParams>().dilation,
            (std::vector<std::int64_t>{2, 2}));  // benchdnn d1 = graph 2
  const Graph d3 = only("--conv --dir=FWD_D mb1ic4id8ih8iw8oc8od8oh8ow8kd3kh3kw3pd1ph1pw1");
  EXPECT_EQ(dims_of(d3, "x"), (std::vector<std::int64_t>{1, 4, 8, 8, 8}));
  const Graph cubic = only("--conv --dir=FWD_D mb1ic4id8oc8kd3pd1");
  EXPECT_EQ(dims_of(cubic, "y"), (std::vector<std::int64_t>{1, 8, 8, 8, 8}));
  EXPECT_EQ(only("--conv --dir=BWD_D mb2ic8ih8oc8kh3ph1").nodes[0].kind, OpKind::conv_bwd_data);
  EXPECT_EQ(only("--conv --dir=BWD_W mb2ic8ih8oc8kh3ph1").nodes[0].kind, OpKind::conv_bwd_weights);
}

TEST_F(Benchdnn, ConvDataTypesTagsAndPostOps) {
  const Graph h = only("--conv --dir=FWD_D --dt=f16 mb2ic8ih8oc8kh3ph1");
  EXPECT_EQ(h.io_type, DataType::f16);
  const Graph mixed = only("--conv --dir=FWD_D --dt=bf16:bf16:f32 mb2ic8ih8oc8kh3ph1");
  EXPECT_EQ(tensor_named(mixed, "y").dtype, DataType::f32);
  EXPECT_EQ(tensor_named(mixed, "x").dtype, DataType::bf16);
  const Graph nhwc = only("--conv --dir=FWD_D --stag=axb --dtag=axb mb2ic8ih4oc16kh1");
  EXPECT_EQ(tensor_named(nhwc, "x").strides[1], 1);
  const Graph relu = only("--conv --dir=FWD_D --attr-post-ops=relu mb2ic8ih8oc8kh3ph1");
  ASSERT_EQ(relu.nodes.size(), 2u);
  EXPECT_EQ(relu.nodes[1].as<PointwiseParams>().op, PointwiseOp::relu);
  const auto blocked = import("--conv --stag=aBcd16b mb2ic16ih8oc16kh3ph1");
  EXPECT_TRUE(blocked.graphs.empty());
  ASSERT_EQ(blocked.not_imported.size(), 1u);
  EXPECT_NE(blocked.not_imported[0].reason.find("aBcd16b"), std::string::npos);
  EXPECT_EQ(import("--conv --dt=s8 mb2ic16ih8oc16kh3ph1").not_imported.size(), 1u);
}

// Binary post-ops broadcast their input by policy or mask; `sum` is a residual add of a full
// tensor in the output's layout.
TEST_F(Benchdnn, BinaryAndSumPostOps) {
  const Graph per_oc = only("--conv --dir=FWD_D --attr-post-ops=add:f32:per_oc+relu mb2ic8ih8oc16kh3ph1");
  ASSERT_EQ(per_oc.nodes.size(), 3u);
  EXPECT_EQ(per_oc.nodes[1].as<PointwiseParams>().op, PointwiseOp::add);
  EXPECT_EQ(dims_of(per_oc, "post_op_0_src1"), (std::vector<std::int64_t>{1, 16, 1, 1}));
  const Graph masked = only("--conv --dir=FWD_D --attr-post-ops=mul:bf16:2 mb2ic8ih8oc16kh3ph1");
  EXPECT_EQ(tensor_named(masked, "post_op_0_src1").dtype, DataType::bf16);
  EXPECT_EQ(masked.nodes[1].as<PointwiseParams>().op, PointwiseOp::mul);
  const Graph common = only("--matmul --attr-post-ops=max:f32 16x32:32x24");
  EXPECT_EQ(dims_of(common, "post_op_0_src1"), (std::vector<std::int64_t>{1, 1}));
  const Graph residual =
      only("--conv --dir=FWD_D --stag=axb --dtag=axb --attr-post-ops=sum+relu mb2ic8ih8oc16kh3ph1");
  ASSERT_EQ(residual.nodes.size(), 3u);
  EXPECT_EQ(dims_of(residual, "post_op_0_src1"), (std::vector<std::int64_t>{2, 16, 8, 8}));
  EXPECT_EQ(tensor_named(residual, "post_op_0_src1").strides, tensor_named(residual, "y").strides);
  const auto scaled = import("--conv --attr-post-ops=sum:0.5 mb2ic8ih8oc16kh3ph1");
  ASSERT_EQ(scaled.not_imported.size(), 1u);
  EXPECT_NE(scaled.not_imported[0].reason.find("scaled sum"), std::string::npos);
  const auto out_of_rank = import("--matmul --attr-post-ops=add:f32:8 16x32:32x24");
  ASSERT_EQ(out_of_rank.not_imported.size(), 1u);
  EXPECT_NE(out_of_rank.not_imported[0].reason.find("mask 8"), std::string::npos);
  EXPECT_EQ(import("--conv --attr-post-ops=add:f32:per_mb_w mb2ic8ih8oc16kh3ph1").not_imported.size(), 1u);
}

TEST_F(Benchdnn, OptionListsMakeEveryCombination) {
  const auto r = import("--conv --dir=FWD_D,BWD_D,BWD_W --dt=f32,f16 mb2ic8ih8oc8kh3ph1");
  EXPECT_EQ(r.graphs.size(), 6u);
  for (const auto& g : r.graphs) round_trip(g.graph);
}

TEST_F(Benchdnn, MatmulDescriptors) {
  const Graph plain = only("--matmul 16x32:32x24");
  EXPECT_EQ(dims_of(plain, "c"), (std::vector<std::int64_t>{16, 24}));
  const Graph batched = only("--matmul --dt=bf16 4x16x32:4x32x24_n\"qkv\"");
  EXPECT_EQ(dims_of(batched, "c"), (std::vector<std::int64_t>{4, 16, 24}));
  const Graph broadcast = only("--matmul 3x1x16x32:1x5x32x8");
  EXPECT_EQ(dims_of(broadcast, "c"), (std::vector<std::int64_t>{3, 5, 16, 8}));
  const Graph transposed = only("--matmul --wtag=ba 16x32:32x24");
  EXPECT_EQ(tensor_named(transposed, "b").strides, (std::vector<std::int64_t>{1, 32}));
  const Graph bias = only("--matmul --bia_dt=f32 --attr-post-ops=gelu_erf 16x32:32x24");
  ASSERT_EQ(bias.nodes.size(), 3u);
  EXPECT_EQ(dims_of(bias, "bias"), (std::vector<std::int64_t>{1, 24}));
  EXPECT_NE(IMPORT_ERROR(import("--matmul 16x32:31x24")).find("K differs"), std::string::npos);
}

TEST_F(Benchdnn, BnormLnormPool) {
  const Graph infer = only("--bnorm --dir=FWD_I mb16ic64ih28");
  EXPECT_EQ(infer.nodes[0].type, "BatchnormInferenceAttributesVarianceExt");
  EXPECT_EQ(dims_of(infer, "x"), (std::vector<std::int64_t>{16, 64, 28, 28}));
  EXPECT_EQ(only("--bnorm --flags=GCH mb2ic8ih4").nodes[0].type, "BatchnormInferenceAttributesVarianceExt");
  EXPECT_EQ(only("--bnorm mb2ic8ih4").nodes[0].type, "BatchnormAttributes");
  EXPECT_EQ(only("--bnorm --dir=BWD_DW mb2ic8ih4").nodes[0].type, "BatchnormBackwardAttributes");
  EXPECT_EQ(only("--bnorm --dir=FWD_I --flags=GR mb2ic8ih4").nodes.size(), 2u);

  const Graph ln = only("--lnorm --dir=FWD_I 8x128x768");
  EXPECT_EQ(ln.nodes[0].kind, OpKind::layernorm);
  EXPECT_EQ(dims_of(ln, "scale"), (std::vector<std::int64_t>{768}));
  const Graph ln_train = only("--lnorm 4x64");
  EXPECT_EQ(ln_train.nodes[0].as<LayernormParams>().phase, NormPhase::training);
  EXPECT_EQ(import("--lnorm --dir=BWD_DW 4x64").not_imported.size(), 1u);

  const Graph pool = only("--pool --alg=avg_np mb2ic16ih112oh56kh3sh2ph1");
  EXPECT_EQ(pool.nodes[0].as<ResampleParams>().mode, ResampleMode::avgpool_exclude_padding);
  EXPECT_EQ(dims_of(pool, "y"), (std::vector<std::int64_t>{2, 16, 56, 56}));
  EXPECT_EQ(only("--pool mb2ic4ih8kh2sh2").nodes[0].as<ResampleParams>().mode, ResampleMode::maxpool);
  EXPECT_EQ(import("--pool --dir=BWD_D mb2ic4ih8kh2sh2").not_imported.size(), 1u);
}

TEST_F(Benchdnn, BatchFilesNestResetAndCarryOptions) {
  write("shapes_resnet", "# a shapes file\nmb2ic8ih8oc8kh3ph1n\"a\"\nmb2ic8ih8oc16kh1n\"b\"\n");
  const auto r = import(
      "./benchdnn --conv --mode=P --dir=FWD_D\n"
      "--batch=shapes_resnet\n"
      "--reset --dir=BWD_D mb2ic8ih8oc8kh3ph1\n"
      "--matmul 2x3:3x4\n"
      "--softmax --dir=FWD_D 16x1000\n");
  ASSERT_EQ(r.graphs.size(), 4u);
  EXPECT_EQ(r.graphs[0].source, (dir_ / "shapes_resnet").string() + ":2");
  EXPECT_EQ(round_trip(r.graphs[0].graph).nodes[0].kind, OpKind::conv_fwd);
  EXPECT_EQ(round_trip(r.graphs[1].graph).nodes.size(), 1u);  // FWD_D carried into the batch file
  EXPECT_EQ(round_trip(r.graphs[2].graph).nodes[0].kind, OpKind::conv_bwd_data);
  EXPECT_EQ(r.graphs[2].source, (dir_ / "batch.txt").string() + ":3");
  EXPECT_EQ(round_trip(r.graphs[3].graph).nodes[0].kind, OpKind::matmul);
  ASSERT_EQ(r.not_imported.size(), 1u);
  EXPECT_EQ(r.not_imported[0].op, "softmax");
}

TEST_F(Benchdnn, MalformedInputNamesFileLineAndWhat) {
  const std::string file = (dir_ / "batch.txt").string();
  EXPECT_EQ(IMPORT_ERROR(import("--conv\n--bogus=1 mb2ic8ih8oc8kh3")),
            file + ":2: unknown benchdnn option --bogus=1");
  EXPECT_NE(
      IMPORT_ERROR(import("--conv mb2ic8ih8oc8kh3zz4")).find(file + ":1: descriptor `mb2ic8ih8oc8kh3zz4`"),
      std::string::npos);
  EXPECT_NE(IMPORT_ERROR(import("--conv mb2ic8ih8oc8")).find("kh is missing"), std::string::npos);
  EXPECT_NE(IMPORT_ERROR(import("--conv --dir=SIDEWAYS mb2ic8ih8oc8kh3")).find("--dir=SIDEWAYS"),
            std::string::npos);
  EXPECT_NE(IMPORT_ERROR(import("--conv g3mb2ic8ih8oc8kh3")).find("g3 does not divide"), std::string::npos);
  EXPECT_NE(IMPORT_ERROR(import("--conv --batch=missing")).find("missing"), std::string::npos);
  EXPECT_NE(IMPORT_ERROR(import("--conv mb2ic8ih8oc8oh2kh3")).find("cannot come from"), std::string::npos);
  EXPECT_NE(IMPORT_ERROR(import("--conv mb99999999999999999999ic8ih8oc8kh3")).find("out of range"),
            std::string::npos);
  EXPECT_NE(IMPORT_ERROR(import("--conv --mb=x mb2ic8ih8oc8kh3")).find("--mb=x"), std::string::npos);
}

}  // namespace
}  // namespace dnnbench::testing
