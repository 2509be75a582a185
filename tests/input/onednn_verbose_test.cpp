// oneDNN verbose logs -> graphs: a committed capture of oneDNN 2.6's own verbose output (one line
// of each primitive kind, repeated executions, the program's output interleaved, a oneDNN 3.x
// line and a line cut short), format detection, and what is counted as not imported.
#include "input/onednn_verbose.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

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
  // Line 7: a channels-last forward convolution (the one on lines 5, 6 and 21 has a fused binary
  // post-op: not imported, below).
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
  EXPECT_EQ(r.graphs.size(), 7u);
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
  // A convolution and a matmul whose bias came fused as a binary post-op, which the converter
  // does not take; the convolution's three executions are counted.
  const auto* fused = not_imported_from_line(r, 5);
  ASSERT_TRUE(fused);
  EXPECT_EQ(fused->op, "convolution");
  EXPECT_NE(fused->reason.find("binary_add"), std::string::npos) << fused->reason;
  EXPECT_NE(fused->reason.find("(3 executions)"), std::string::npos) << fused->reason;
  const auto* matmul = not_imported_from_line(r, 17);
  ASSERT_TRUE(matmul);
  EXPECT_EQ(matmul->op, "matmul");
  EXPECT_NE(matmul->reason.find("binary_add"), std::string::npos) << matmul->reason;
  // The last line was cut short: named, and everything before it still imported.
  const auto* cut = not_imported_from_line(r, 23);
  ASSERT_TRUE(cut);
  EXPECT_NE(cut->reason.find("cut short"), std::string::npos) << cut->reason;
  EXPECT_EQ(r.not_imported.size(), 5u);
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
