// The cuDNN API log importer on a real cuDNN 9.19 log (tests/data/cudnn-log/make_cpu_excerpt.cpp:
// a conv forward graph finalized and a legacy batch-norm call, on a machine without a GPU), and on
// that log changed the ways real logs go wrong: cut short, another thread's block interleaved, a
// newer schema, an operation the graph format has no node for, executions of which one fails.
#include "input/cudnn_api_log.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "input/import.hpp"
#include "input/manifest.hpp"

namespace dnnbench {
namespace {

namespace fs = std::filesystem;

fs::path excerpt() {
  return fs::path(DNNBENCH_SOURCE_DIR) / "tests/data/cudnn-log/conv-and-batchnorm-cpu-cudnn9.19.log";
}

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The text from the first line starting with `from` to the line before the next block header.
std::string block(const std::string& text, const std::string& from) {
  const auto begin = text.find(from);
  const auto end = text.find("\nI! CuDNN", begin + 1);
  return text.substr(begin, end == std::string::npos ? std::string::npos : end + 1 - begin);
}

std::string replace_all(std::string text, const std::string& what, const std::string& with) {
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + with.size()))
    text.replace(at, what.size(), with);
  return text;
}

TEST(CudnnApiLog, RealLogsConvGraphImportsCountedByFinalizationWithWhereItRan) {
  const auto r = import_cudnn_api_log_file(excerpt());
  // The batch-norm call failed (no handle on that machine: its E! block follows): it ran nothing.
  ASSERT_EQ(r.graphs.size(), 1u);
  const auto& g = r.graphs[0].graph;
  EXPECT_EQ(r.graphs[0].count, 1);
  EXPECT_NE(r.graphs[0].source.find("conv-and-batchnorm-cpu-cudnn9.19.log:"), std::string::npos);
  EXPECT_NE(r.graphs[0].source.find("1 finalizations, no execution logged"), std::string::npos);
  EXPECT_NE(r.graphs[0].source.find("thread "), std::string::npos);
  ASSERT_EQ(g["nodes"].size(), 1u);
  const auto& conv = g["nodes"][0];
  EXPECT_EQ(conv["type"], "ConvolutionFwdAttributes");
  EXPECT_EQ(conv["parameters"]["pre_padding"], nlohmann::json({1, 1}));
  EXPECT_EQ(conv["parameters"]["conv_mode"], "CROSS_CORRELATION");
  EXPECT_EQ(g["io_data_type"], "half");
  // x keeps its channels-last strides.
  EXPECT_EQ(g["tensors"][0]["strides"], nlohmann::json({50176, 1, 1792, 64}));
  EXPECT_TRUE(r.not_imported.empty());
  // The graph reads back and validates as the manifest writes it.
  const auto manifest = build_manifest({{"log", r}});
  EXPECT_EQ(manifest.graphs.size(), 1u);
  EXPECT_TRUE(manifest.not_imported.empty());
}

TEST(CudnnApiLog, LegacyBatchNormCallThatRanBecomesABatchNormGraph) {
  auto text = read_all(excerpt());
  // As on a machine where the call succeeds: without its error block.
  const auto error = block(text, "E! CuDNN (v91900 56) function cudnnBatchNormalizationForwardTrainingEx");
  text.erase(text.find(error), error.size());
  const auto r = import_cudnn_api_log_text(text, "bn.log");
  ASSERT_EQ(r.graphs.size(), 2u);
  const nlohmann::json* bn = nullptr;
  for (const auto& g : r.graphs)
    if (g.graph["nodes"][0]["type"] == "BatchnormAttributes") bn = &g.graph;
  ASSERT_NE(bn, nullptr);
  EXPECT_EQ((*bn)["tensors"][0]["dims"], nlohmann::json({32, 64, 56, 56}));
  EXPECT_EQ((*bn)["tensors"][0]["strides"], nlohmann::json({200704, 1, 3584, 64}));
  EXPECT_EQ((*bn)["tensors"][0]["data_type"], "half");
  EXPECT_TRUE(build_manifest({{"bn.log", r}}).not_imported.empty());
  // The plan it ran, as the cuDNN provider's legacy engine names it.
  for (const auto& g : r.graphs) {
    if (&g.graph != bn) continue;
    EXPECT_NE(g.source.find("ran legacy_bn mode=persistent"), std::string::npos) << g.source;
  }
}

TEST(CudnnApiLog, ExecutionsCountAndAFailedOneDoesNot) {
  const auto text = read_all(excerpt());
  // cudnnBackendExecuteGraphVisualize carries the graph like the finalize's block; each is followed
  // by the execute's status, as a finalize's is.
  auto execute = replace_all(block(text, "I! CuDNN (v91900 56) function cudnnBackendFinalizeGraphVisualize"),
                             "FinalizeGraphVisualize", "ExecuteGraphVisualize");
  const auto trailer = execute.substr(execute.find("i! Process="));  // the same thread's
  const auto ok =
      "I! CuDNN (v91900 56) function cudnnBackendExecute() called:\n"
      "i!     status: type=cudnnStatus_t; val=CUDNN_STATUS_SUCCESS (0);\n" +
      trailer;
  const auto failed = replace_all(ok, "CUDNN_STATUS_SUCCESS (0)", "CUDNN_STATUS_EXECUTION_FAILED (5000)");
  const auto r = import_cudnn_api_log_text(text + execute + ok + execute + ok + execute + failed, "x.log");
  ASSERT_EQ(r.graphs.size(), 1u);
  EXPECT_EQ(r.graphs[0].count, 2);
  EXPECT_NE(r.graphs[0].source.find("2 executions"), std::string::npos);
}

TEST(CudnnApiLog, CutShortAndInterleavedBlocksAreReportedWithTheirLine) {
  const auto text = read_all(excerpt());
  const auto visualize = text.find("I! CuDNN (v91900 56) function cudnnBackendFinalizeGraphVisualize");
  // Cut in the middle of the graph's block: nothing of it is imported, the line is named.
  const auto cut = import_cudnn_api_log_text(text.substr(0, text.find("i! Time", visualize)), "cut.log");
  EXPECT_TRUE(cut.graphs.empty());
  ASSERT_EQ(cut.not_imported.size(), 1u);
  EXPECT_NE(cut.not_imported[0].source.find("cut.log:"), std::string::npos);
  EXPECT_NE(cut.not_imported[0].reason.find("cut short"), std::string::npos);
  // Another thread's block begins before the graph's block ends: that block is reported, the
  // other thread's call and the rest of the log still read.
  auto mixed = text;
  mixed.insert(mixed.find("i! Time", visualize),
               "I! CuDNN (v91900 56) function cudnnGetVersion() called:\n"
               "i! Process=21044; Thread=21099; GPU=NULL; Handle=NULL; StreamId=NULL.\n");
  const auto r = import_cudnn_api_log_text(mixed, "mixed.log");
  EXPECT_TRUE(r.graphs.empty());
  ASSERT_EQ(r.not_imported.size(), 1u);
  EXPECT_EQ(r.not_imported[0].op, "cudnnBackendFinalizeGraphVisualize");
}

TEST(CudnnApiLog, NewerSchemaAndUnmappedOperationsAreCountedWithTheReason) {
  const auto text = read_all(excerpt());
  const auto newer =
      import_cudnn_api_log_text(replace_all(text, "\"schemaVersion\":4", "\"schemaVersion\":5"), "v5.log");
  EXPECT_TRUE(newer.graphs.empty());
  ASSERT_FALSE(newer.not_imported.empty());
  EXPECT_NE(newer.not_imported[0].reason.find("schema version 5"), std::string::npos);

  const auto rng = import_cudnn_api_log_text(
      replace_all(text, "\"CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR\"",
                  "\"CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR\""),
      "rng.log");
  EXPECT_TRUE(rng.graphs.empty());
  ASSERT_EQ(rng.not_imported.size(), 1u);
  EXPECT_EQ(rng.not_imported[0].op, "RNG");
  EXPECT_NE(rng.not_imported[0].reason.find("RNG has no graph node"), std::string::npos);
  EXPECT_NE(rng.not_imported[0].reason.find("1 finalizations"), std::string::npos);
}

// cuDNN's own attention operation (tests/data/cudnn-log/make_sdpa_excerpt.cpp), and its backward
// with the ports the forward's naming implies (dO, dQ, dK, dV).
TEST(CudnnApiLog, AttentionOperationBecomesAnSdpaNode) {
  const auto path = fs::path(DNNBENCH_SOURCE_DIR) / "tests/data/cudnn-log/sdpa-operation-cpu-cudnn9.19.log";
  const auto r = import_cudnn_api_log_file(path);
  ASSERT_EQ(r.graphs.size(), 1u);
  const auto& g = r.graphs[0].graph;
  ASSERT_EQ(g["nodes"].size(), 1u);
  const auto& node = g["nodes"][0];
  EXPECT_EQ(node["type"], "SdpaAttributes");
  EXPECT_TRUE(node["outputs"].contains("stats_tensor_uid"));
  EXPECT_EQ(node["attributes"]["generate_stats"], true);
  EXPECT_DOUBLE_EQ(node["attributes"]["attn_scale_value"].get<double>(), 0.125);  // 1/sqrt(64)
  EXPECT_EQ(g["tensors"][0]["dims"], nlohmann::json({8, 12, 512, 64}));
  EXPECT_TRUE(build_manifest({{"sdpa", r}}).not_imported.empty());

  const auto text = read_all(path);
  const auto forward = std::string(
      R"("operation":"CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR","Q":"1","K":"2","V":"3","O":"4","stats":"5","scale":"6")");
  ASSERT_NE(text.find(forward), std::string::npos);
  const auto backward = replace_all(
      text, forward,
      R"("operation":"CUDNN_BACKEND_OPERATION_SDPA_BWD_DESCRIPTOR","Q":"1","K":"2","V":"3","O":"4","stats":"5","scale":"6","dO":"1","dQ":"2","dK":"3","dV":"4")");
  const auto b = import_cudnn_api_log_text(backward, "bwd.log");
  ASSERT_EQ(b.graphs.size(), 1u);
  EXPECT_EQ(b.graphs[0].graph["nodes"][0]["type"], "SdpaBackwardAttributes");
  const auto with_mask = replace_all(text, R"("scale":"6")", R"("scale":"6","blockMask":"5")");
  const auto m = import_cudnn_api_log_text(with_mask, "mask.log");
  EXPECT_TRUE(m.graphs.empty());
  ASSERT_EQ(m.not_imported.size(), 1u);
  EXPECT_NE(m.not_imported[0].reason.find("block mask"), std::string::npos);
}

// PyTorch 2.11's own logs on the H200 (cuDNN 9.19; tests/data/cudnn-log/torch_step.py): one
// step each, every execution mapped. ResNet-50's AMP channels-last training step runs 53 forward,
// 52 backward-data and 53 backward-weights convolutions (counted from the plans its executions
// print, matched to the graphs their finalizes logged) and 53 batch norms forward and backward
// (legacy calls); a BERT-base and a Llama-style layer run attention forward (cuDNN's SDPA_FWD
// operation; the causal composite pattern) and backward (the composite pattern) once each.
TEST(CudnnApiLog, PyTorchCapturesImportEveryExecution) {
  const auto dir = fs::path(DNNBENCH_SOURCE_DIR) / "tests/data/cudnn-log";
  struct Capture {
    const char* file;
    std::int64_t executions;
    std::map<std::string, std::int64_t> ops;
  };
  const std::vector<Capture> captures = {
      {"resnet50-amp-step-torch2.11-cudnn9.19.log.xz",
       264,
       {{"ConvolutionFwdAttributes", 53},
        {"ConvolutionBwdAttributes", 52},
        {"ConvolutionWrwAttributes", 53},
        {"BatchnormAttributes", 53},
        {"BatchnormBackwardAttributes", 53}}},
      {"bert-layer-torch2.11-cudnn9.19.log.xz", 2, {{"SdpaAttributes", 1}, {"SdpaBackwardAttributes", 1}}},
      {"llama-layer-torch2.11-cudnn9.19.log.xz", 2, {{"SdpaAttributes", 1}, {"SdpaBackwardAttributes", 1}}},
  };
  for (const auto& c : captures) {
    const auto r = import_cudnn_api_log_file(dir / c.file);
    EXPECT_TRUE(r.not_imported.empty()) << c.file << ": " << r.not_imported.front().reason;
    const auto manifest = build_manifest({{c.file, r}});
    EXPECT_TRUE(manifest.not_imported.empty()) << c.file;
    std::int64_t executions = 0;
    std::map<std::string, std::int64_t> ops;
    // Every graph has a name of its own, legacy calls too (ResNet-50 calls one batch-norm function
    // for 12 shapes): reports and comparisons key rows by it.
    std::set<std::string> names;
    for (const auto& g : manifest.graphs) {
      executions += g.count;
      for (const auto& op : g.ops) ops[op] += g.count;
      names.insert(g.name);
    }
    EXPECT_EQ(names.size(), manifest.graphs.size()) << c.file;
    EXPECT_EQ(executions, c.executions) << c.file;
    EXPECT_EQ(ops, c.ops) << c.file;
  }
  // The Llama layer's attention is causal, BERT's is not.
  for (const auto* file :
       {"llama-layer-torch2.11-cudnn9.19.log.xz", "bert-layer-torch2.11-cudnn9.19.log.xz"}) {
    const auto r = import_cudnn_api_log_file(dir / file);
    for (const auto& g : r.graphs) {
      const auto& node = g.graph["nodes"][0];
      const auto& settings = node.contains("attributes") ? node["attributes"] : node["parameters"];
      EXPECT_EQ(settings["causal_mask"], std::string(file).starts_with("llama")) << file;
    }
  }
}

TEST(CudnnApiLog, IsRecognisedAmongOtherFormats) {
  EXPECT_EQ(detect_source_format(excerpt()), SourceFormat::cudnn_api_log);
  EXPECT_TRUE(is_cudnn_api_log_line("I! CuDNN (v91900 56) function cudnnCreate() called:"));
  EXPECT_FALSE(is_cudnn_api_log_line("onednn_verbose,exec,cpu,convolution"));
}

}  // namespace
}  // namespace dnnbench
