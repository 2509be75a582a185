// oneDNN verbose logs -> graphs: a committed capture of oneDNN 2.6's own verbose output (one line
// of each primitive kind, repeated executions, the program's output interleaved, a oneDNN 3.x
// line and a line cut short), format detection, and what is counted as not imported.
#include "input/onednn_verbose.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "import_test_util.hpp"

namespace dnnbench::testing {
namespace {

namespace fs = std::filesystem;

fs::path capture() {
  return fs::path(DNNBENCH_SOURCE_DIR) / "tests/data/onednn-verbose/capture-2.6.log";
}

const ImportedGraph* graph_from_line(const ImportResult& r, std::size_t line) {
  const std::string suffix = ":" + std::to_string(line);
  for (const auto& g : r.graphs)
    if (g.source.ends_with(suffix)) return &g;
  return nullptr;
}

const NotImported* not_imported_from_line(const ImportResult& r, std::size_t line) {
  const std::string suffix = ":" + std::to_string(line);
  for (const auto& n : r.not_imported)
    if (n.source.ends_with(suffix)) return &n;
  return nullptr;
}

TEST(OnednnVerbose, TheCaptureIsDetectedAmongOtherFormats) {
  EXPECT_EQ(detect_source_format(capture()), SourceFormat::onednn_verbose);
  EXPECT_TRUE(is_onednn_verbose_line("dnnl_verbose,exec,cpu,convolution,..."));
  EXPECT_FALSE(is_onednn_verbose_line("epoch 0: onednn_verbose,exec"));
}

TEST(OnednnVerbose, EachDistinctProblemIsOneGraphCountedByItsExecutions) {
  const auto r = import_onednn_verbose_file(capture());
  for (const auto& g : r.graphs) round_trip(g.graph);
  // Line 7: a channels-last forward convolution.
  const auto* fwd = graph_from_line(r, 7);
  ASSERT_TRUE(fwd) << r.graphs.size();
  EXPECT_EQ(fwd->count, 1);
  const Graph conv = round_trip(fwd->graph);
  EXPECT_EQ(conv.nodes.at(0).kind, OpKind::conv_fwd);
  // acdb: the framework's NHWC activations (channels have stride 1).
  EXPECT_EQ(tensor_named(conv, "x").strides.at(1), 1);
  // Backward data and weights, from oneDNN's blocked layouts (aBcd16b) as their plain order.
  const auto* bwd_data = graph_from_line(r, 9);
  ASSERT_TRUE(bwd_data);
  EXPECT_EQ(round_trip(bwd_data->graph).nodes.at(0).kind, OpKind::conv_bwd_data);
  const auto* bwd_weights = graph_from_line(r, 10);
  ASSERT_TRUE(bwd_weights);
  EXPECT_EQ(bwd_weights->count, 2);
  EXPECT_EQ(round_trip(bwd_weights->graph).nodes.at(0).kind, OpKind::conv_bwd_weights);
  // Batch norm (flags GCH: global statistics, scale, shift), layer norm x3, average pooling.
  ASSERT_TRUE(graph_from_line(r, 12));
  const auto* lnorm = graph_from_line(r, 13);
  ASSERT_TRUE(lnorm);
  EXPECT_EQ(lnorm->count, 3);
  ASSERT_TRUE(graph_from_line(r, 16));
  // oneDNN 3.x's form (primitive before exec, '::' around the tag): forward with its bias.
  const auto* v3 = graph_from_line(r, 22);
  ASSERT_TRUE(v3);
  EXPECT_EQ(round_trip(v3->graph).nodes.size(), 2u);  // conv + bias add
  EXPECT_EQ(r.graphs.size(), 9u);
}

// A bias fused as a binary post-op (`binary_add:f32:2`, a mask of the dims the bias has) before a
// relu, as PyTorch's and oneDNN's graph fusions run convolutions and matmuls.
TEST(OnednnVerbose, BinaryPostOpsBecomeBroadcastAdds) {
  const auto r = import_onednn_verbose_file(capture());
  const auto* conv = graph_from_line(r, 5);
  ASSERT_TRUE(conv);
  EXPECT_EQ(conv->count, 3);
  const Graph g = round_trip(conv->graph);
  ASSERT_EQ(g.nodes.size(), 3u);  // conv, add, relu
  EXPECT_EQ(g.nodes[0].kind, OpKind::conv_fwd);
  EXPECT_EQ(tensor_named(g, "post_op_0_src1").dims, (std::vector<std::int64_t>{1, 16, 1, 1}));
  const auto* matmul = graph_from_line(r, 17);
  ASSERT_TRUE(matmul);
  const Graph mm = round_trip(matmul->graph);
  ASSERT_EQ(mm.nodes.size(), 3u);  // matmul, add, gelu
  EXPECT_EQ(tensor_named(mm, "post_op_0_src1").dims, (std::vector<std::int64_t>{1, 1, 24}));
}

TEST(OnednnVerbose, WhatIsNotImportedIsCountedWithItsReason) {
  const auto r = import_onednn_verbose_file(capture());
  const auto* reorder = not_imported_from_line(r, 8);
  ASSERT_TRUE(reorder);
  EXPECT_EQ(reorder->op, "reorder");
  EXPECT_NE(reorder->reason.find("(1 execution)"), std::string::npos) << reorder->reason;
  const auto* eltwise = not_imported_from_line(r, 18);
  ASSERT_TRUE(eltwise);
  EXPECT_NE(eltwise->reason.find("(2 executions)"), std::string::npos) << eltwise->reason;
  // The last line was cut short: named, and everything before it still imported.
  const auto* cut = not_imported_from_line(r, 23);
  ASSERT_TRUE(cut);
  EXPECT_NE(cut->reason.find("cut short"), std::string::npos) << cut->reason;
  EXPECT_EQ(r.not_imported.size(), 3u);
}

// A memory tag longer than oneDNN's 12 dimensions is not a format: the line is refused with one
// line of reason. Its plain order once ran past 'z' into arbitrary bytes, a newline among them
// (a fuzz finding: a tag of 170 letters before its block size).
TEST(OnednnVerbose, AMemoryTagOfMoreThanTwelveDimensionsIsRefusedOnOneLine) {
  const std::string tag(170, 'a');
  const std::string line =
      "onednn_verbose,exec,cpu,convolution,brgconv:avx512_core,forward_inference,"
      "src_f32::blocked:acdb:f0 wei_f32::blocked:" +
      tag +
      "16b:f0 bia_undef::undef::f0 "
      "dst_f32::blocked:acdb:f0,attr-scratchpad:user ,alg:convolution_direct,"
      "mb2_ic8oc16_ih8oh8kh3sh1dh0ph1_iw8ow8kw3sw1dw0pw1,0.02\n";
  const auto r = import_onednn_verbose_text(line, "tag.log");
  EXPECT_TRUE(r.graphs.empty());
  ASSERT_EQ(r.not_imported.size(), 1u);
  const auto& refused = r.not_imported.front();
  EXPECT_EQ(refused.source, "tag.log:1");
  EXPECT_NE(refused.reason.find("the wtag memory tag has 170 dimensions"), std::string::npos)
      << refused.reason;
  EXPECT_EQ(refused.reason.find('\n'), std::string::npos) << refused.reason;
}

// A framework's whole capture (PyTorch 1.13's CPU ResNet-18 training step): every convolution
// execution imports, the reorders between them are counted as not imported, and nothing else is
// left out. The weights of its backward-data convolutions come in oneDNN's transposed blocking
// (BAcd16a16b), which no framework holds: the plain order then.
TEST(OnednnVerbose, AResNet18TrainingStepImportsEveryConvolution) {
  const auto log = fs::path(DNNBENCH_SOURCE_DIR) / "tests/data/onednn-verbose/resnet18-train-torch1.13.log";
  const auto r = import_onednn_verbose_file(log);
  std::int64_t executions = 0;
  std::map<OpKind, std::int64_t> by_kind;
  for (const auto& g : r.graphs) {
    const Graph graph = round_trip(g.graph);
    executions += g.count;
    by_kind[graph.nodes.at(0).kind] += g.count;
  }
  EXPECT_EQ(executions, 59);
  EXPECT_EQ(by_kind[OpKind::conv_fwd], 20);
  EXPECT_EQ(by_kind[OpKind::conv_bwd_data], 19);  // the stem's input needs no gradient
  EXPECT_EQ(by_kind[OpKind::conv_bwd_weights], 20);
  EXPECT_EQ(r.graphs.size(), 32u);
  for (const auto& n : r.not_imported) EXPECT_EQ(n.op, "reorder") << n.source << ": " << n.reason;
  const auto* transposed = graph_from_line(r, 103);
  ASSERT_TRUE(transposed);
  const Graph bwd = round_trip(transposed->graph);
  EXPECT_EQ(bwd.nodes.at(0).kind, OpKind::conv_bwd_data);
  const auto& w = tensor_named(bwd, "w");
  EXPECT_EQ(w.strides.back(), 1);  // oihw: plain
}

// Channels-last and bf16 autocast from the same framework: fp32 and bf16 convolutions in NHWC
// (weights in padded blockings, `wei_bf16:p:blocked:AcdB64a2b`) and a bf16 matmul with a fused
// `sum` post-op (the classifier under autocast, its bias added into the output); every execution
// imports.
TEST(OnednnVerbose, ChannelsLastBf16AndAFusedSumImport) {
  const auto log =
      fs::path(DNNBENCH_SOURCE_DIR) / "tests/data/onednn-verbose/resnet18-nhwc-bf16-encoder-torch1.13.log";
  const auto r = import_onednn_verbose_file(log);
  std::int64_t executions = 0, bf16 = 0;
  for (const auto& g : r.graphs) {
    const Graph graph = round_trip(g.graph);
    executions += g.count;
    if (graph.nodes.at(0).kind == OpKind::conv_fwd) {
      EXPECT_EQ(tensor_named(graph, "x").strides.at(1), 1) << g.source;  // channels last
      if (tensor_named(graph, "x").dtype == DataType::bf16) bf16 += g.count;
    }
  }
  EXPECT_EQ(executions, 41);
  EXPECT_EQ(bf16, 20);
  EXPECT_EQ(r.graphs.size(), 23u);
  for (const auto& n : r.not_imported) EXPECT_EQ(n.op, "reorder") << n.source << ": " << n.reason;
  const auto* matmul = graph_from_line(r, 86);
  ASSERT_TRUE(matmul);
  const Graph mm = round_trip(matmul->graph);
  ASSERT_EQ(mm.nodes.size(), 2u);  // the classifier (2x512 by 512x1000), then the sum as an add
  EXPECT_EQ(tensor_named(mm, "post_op_0_src1").dims, tensor_named(mm, "y").dims);
}

TEST(OnednnVerbose, TextAndFileAgreeAndOtherOutputIsIgnored) {
  std::ifstream in(capture());
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto from_text = import_onednn_verbose_text(text, capture().string());
  const auto from_file = import_onednn_verbose_file(capture());
  ASSERT_EQ(from_text.graphs.size(), from_file.graphs.size());
  for (std::size_t k = 0; k < from_text.graphs.size(); ++k) {
    EXPECT_EQ(from_text.graphs[k].graph, from_file.graphs[k].graph);
    EXPECT_EQ(from_text.graphs[k].count, from_file.graphs[k].count);
  }
  EXPECT_TRUE(import_onednn_verbose_text("hello\nonednn_verbose,info,oneDNN v3.5\n", "x.log").graphs.empty());
}

}  // namespace
}  // namespace dnnbench::testing
