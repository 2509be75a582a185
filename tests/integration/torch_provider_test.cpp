// Integration tests of the torch provider (LibTorch's ATen eager ops): every sample graph it can
// express passes the reference check; the others are skipped with ATen's or the provider's reason.
// Skipped where the binary was built without LibTorch.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>

#include "cli_runner.hpp"

namespace dnnbench::testing {
namespace {

using nlohmann::json;

// Under the ASan preset, no leak check at exit for these runs: LeakSanitizer's tracer crashed
// (SIGSEGV in StopTheWorld, exit 134) at the exit of a run whose rows had all passed and whose
// results were written, with LibTorch's OpenMP threads still alive (CI on a loaded 2-core
// machine, 2026-12-01); it passed in the runs before and after. A leak LibTorch makes is not ours
// to fix, and dnnbench's own code is leak-checked by every other test. The other ASan and UBSan
// checks stay on.
const std::vector<std::string> kEnvironment{"ASAN_OPTIONS=detect_leaks=0:abort_on_error=1"};

CliResult run_torch(const std::vector<std::string>& args) {
  return run_cli(args, kEnvironment);
}

// Graphs whose torch rows must pass on every build (CPU LibTorch 1.13 included): one per op
// family, so a lowering that breaks fails here by name rather than moving to `skipped`.
const std::set<std::string> kMustPass = {"conv_fwd_2d_nchw_fp32",
                                         "conv_fwd_asymmetric_padding",
                                         "conv_fwd_convolution_mode",
                                         "conv_bwd_data_2d_fp32",
                                         "conv_bwd_weights_2d_fp32",
                                         "matmul_broadcast_batch_fp32",
                                         "fused_matmul_bias_gelu",
                                         "pointwise_relu_clipped",
                                         "batchnorm_inference",
                                         "layernorm_training",
                                         "rmsnorm_training",
                                         "reduction_norm2",
                                         "batchnorm_training",
                                         "batchnorm_backward",
                                         "rmsnorm_inference_bias",
                                         "resample_maxpool_3x3_s2",
                                         "resample_avgpool_include_padding"};

TEST(TorchProvider, SampleGraphsPassOrSkipWithAReason) {
  if (!provider_built("torch")) GTEST_SKIP() << "built without LibTorch";
  TempDir dir;
  const auto out = (dir / "torch.json").string();
  const auto r = run_torch(run_args({"-g", source_path("graphs/samples"), "--provider", "torch", "-o", out}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto doc = json::parse(read_text(out));
  EXPECT_EQ(doc["summary"]["failed"], 0) << r.out;
  EXPECT_EQ(doc["summary"]["errors"], 0) << r.out;
  // Every status a graph's rows had: on CUDA a graph has several engines (cudnn.benchmark, +tf32),
  // and a +tf32 engine is skipped under the default strict fp32 math while `eager` passes.
  std::map<std::string, std::set<std::string>> status;
  for (const auto& g : doc["graphs"])
    for (const auto& row : g["results"]) {
      const std::string name = g["graph_name"];
      EXPECT_EQ(row["provider"], "torch");
      status[name].insert(row["status"].get<std::string>());
      if (row["status"] == "success") {
        EXPECT_TRUE(row["correctness"]["passed"].get<bool>()) << name;
      } else {
        EXPECT_EQ(row["status"], "skipped") << name << ": " << row["error_message"];
        EXPECT_FALSE(row["skip_reason"].get<std::string>().empty()) << name;
      }
    }
  for (const auto& name : kMustPass) EXPECT_TRUE(status[name].count("success")) << name;
  // The graph the tool cannot execute at all is skipped before any provider sees it.
  EXPECT_EQ(status["unsupported_block_scale_quantize"], std::set<std::string>{"skipped"});
}

// Batch norm training with running averages (the sample is fp16 NHWC, which CPU LibTorch 1.13
// has no kernel for): the same graph in fp32, so the in-place update of copies of prev_running_*
// is checked against the reference's momentum rule on every build.
TEST(TorchProvider, BatchNormTrainingUpdatesTheRunningAverages) {
  if (!provider_built("torch")) GTEST_SKIP() << "built without LibTorch";
  TempDir dir;
  auto g = json::parse(read_text(source_path("graphs/samples/batchnorm_training_running_nhwc_fp16.json")));
  for (auto& t : g["tensors"])
    if (t["data_type"] == "half") t["data_type"] = "float";
  const auto file = dir / "bn_running_fp32.json";
  std::ofstream(file) << g.dump();
  const auto out = (dir / "torch.json").string();
  const auto r = run_torch(run_args({"-g", file.string(), "--provider", "torch", "-o", out}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto doc = json::parse(read_text(out));
  const auto& row = doc["graphs"][0]["results"][0];
  ASSERT_EQ(row["status"], "success") << row.dump();
  EXPECT_TRUE(row["correctness"]["passed"].get<bool>()) << row.dump();
  std::set<std::string> checked;
  for (const auto& o : row["correctness"]["outputs"]) checked.insert(o["tensor"].get<std::string>());
  EXPECT_TRUE(checked.count("next_running_mean") && checked.count("next_running_variance")) << row.dump();
}

TEST(TorchProvider, EngineNotesNameTheTorchVersionAndWhatTheRunAdds) {
  if (!provider_built("torch")) GTEST_SKIP() << "built without LibTorch";
  TempDir dir;
  const auto out = (dir / "torch.json").string();
  const auto r = run_torch(run_args({"-g", source_path("graphs/samples/conv_fwd_asymmetric_padding.json"),
                                     "--provider", "torch", "-o", out}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto doc = json::parse(read_text(out));
  const auto& row = doc["graphs"][0]["results"][0];
  EXPECT_EQ(row["engine_id"], "eager");
  const std::string notes = row.dump();
  EXPECT_NE(notes.find("(LibTorch)"), std::string::npos) << notes;
  EXPECT_NE(notes.find("at::constant_pad_nd"), std::string::npos) << notes;
}

TEST(TorchProvider, IsOptInAndNamedByProvider) {
  if (!provider_built("torch")) GTEST_SKIP() << "built without LibTorch";
  TempDir dir;
  const auto out = (dir / "default.json").string();
  const auto r = run_torch(run_args({"-g", source_path("graphs/samples/matmul_plain_fp32.json"), "-o", out}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // The document outlives the loop: a range over a temporary's member would dangle.
  const auto doc = json::parse(read_text(out));
  for (const auto& row : doc["graphs"][0]["results"]) EXPECT_NE(row["provider"], "torch");
  const auto engines = run_torch(
      {"list-engines", "-g", source_path("graphs/samples/matmul_plain_fp32.json"), "--provider", "torch"});
  EXPECT_EQ(engines.exit_code, 0) << engines.err;
  EXPECT_NE(engines.out.find("eager"), std::string::npos) << engines.out;
}

}  // namespace
}  // namespace dnnbench::testing
