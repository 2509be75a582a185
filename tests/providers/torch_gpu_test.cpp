// GPU tests of the torch provider built against a CUDA LibTorch (the PyTorch wheel's): the real
// binary runs a convolution and a matmul on the GPU through ATen on dnnbench's stream; the rows
// are timed by device events (or graph replay) and pass the reference check. Skipped where the
// torch provider has no CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include <set>

#include "cli_runner.hpp"

namespace dnnbench::testing {
namespace {

using nlohmann::json;

bool torch_on_cuda() {
  const auto out = run_cli({"list-providers"}).out;
  const auto at = out.find("torch");
  return at != std::string::npos && out.find("LibTorch, CUDA", at) != std::string::npos;
}

json run_torch(const std::string& graph, std::vector<std::string> extra = {}) {
  TempDir dir;
  const auto out = (dir / "torch.json").string();
  std::vector<std::string> args = {
      "-g", source_path("graphs/samples/" + graph + ".json"), "--provider", "torch", "-o", out};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_cli(run_args(args));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  return json::parse(read_text(out));
}

// Every row of the run succeeded on the device and passed; returns the engine ids.
std::set<std::string> passed_engines(const json& doc) {
  std::set<std::string> engines;
  for (const auto& row : doc["graphs"][0]["results"]) {
    EXPECT_EQ(row["status"], "success") << row.dump();
    EXPECT_TRUE(row["correctness"]["passed"].get<bool>()) << row.dump();
    EXPECT_FALSE(row["gpu_kernel_stats"].is_null()) << row.dump();
    engines.insert(row["engine_id"]);
  }
  return engines;
}

TEST(TorchGpu, ConvolutionRunsOnTheDeviceAndPasses) {
  if (!torch_on_cuda()) GTEST_SKIP() << "the torch provider has no CUDA device here";
  const auto engines = passed_engines(run_torch("conv_fwd_2d_nhwc_fp16"));
  EXPECT_EQ(engines, (std::set<std::string>{"eager", "eager+cudnn.benchmark"}));
}

TEST(TorchGpu, MatmulRunsOnTheDeviceAndPasses) {
  if (!torch_on_cuda()) GTEST_SKIP() << "the torch provider has no CUDA device here";
  const auto doc = run_torch("matmul_fp16");
  EXPECT_EQ(passed_engines(doc), (std::set<std::string>{"eager"}));
  // Timed like cuDNN's and cuBLASLt's rows (providers/cuda/'s stream): CUDA-graph replay, CUPTI
  // kernel records; and the GEMM writes the bound output itself (no copy kernel after it).
  const auto& row = doc["graphs"][0]["results"][0];
  EXPECT_NE(row["timing"]["method"].get<std::string>().find("cuda-graph-replay"), std::string::npos)
      << row.dump();
  ASSERT_FALSE(row["kernels"].empty()) << row.dump();
  EXPECT_FALSE(row["kernel_sum_stats"].is_null()) << row.dump();
  for (const auto& k : row["kernels"])
    EXPECT_EQ(k["name"].get<std::string>().find("copy"), std::string::npos) << k;
}

TEST(TorchGpu, Fp32MatmulRunsTf32OnlyWhenAllowed) {
  if (!torch_on_cuda()) GTEST_SKIP() << "the torch provider has no CUDA device here";
  const auto strict = run_torch("matmul_plain_fp32");
  int skipped_tf32 = 0;
  for (const auto& row : strict["graphs"][0]["results"])
    if (row["engine_id"] == "eager+tf32") skipped_tf32 += row["status"] == "skipped";
  EXPECT_EQ(skipped_tf32, 1);
  EXPECT_EQ(passed_engines(run_torch("matmul_plain_fp32", {"--fp32-math", "tf32"})),
            (std::set<std::string>{"eager", "eager+tf32"}));
}

// Attention: ATen's own pick and each SDPA backend forced. Every row passes the reference or is
// skipped with ATen's reason (flash takes no boolean mask, for one); ATen's pick and the math
// backend run every mask the graphs have (padding, causal + GQA, bottom-right window).
TEST(TorchGpu, AttentionRunsOnEachBackendOrSaysWhyNot) {
  if (!torch_on_cuda()) GTEST_SKIP() << "the torch provider has no CUDA device here";
  const std::set<std::string> all{"eager", "eager+sdpa=cudnn", "eager+sdpa=flash", "eager+sdpa=efficient",
                                  "eager+sdpa=math"};
  TempDir dir;
  for (const std::string graph : {"sdpa_fwd_fp16", "sdpa_fwd_causal_gqa_bf16", "sdpa_fwd_padding_fp16",
                                  "sdpa_fwd_bottom_right_window_fp16"}) {
    // The samples ask for the softmax statistics, which at::scaled_dot_product_attention does not
    // return (those rows are skipped with that reason): the same graphs without them.
    auto g = json::parse(read_text(source_path("graphs/samples/" + graph + ".json")));
    for (auto& node : g["nodes"]) {
      node["outputs"].erase("stats_tensor_uid");
      node["attributes"]["generate_stats"] = false;
    }
    auto& tensors = g["tensors"];
    tensors.erase(
        std::remove_if(tensors.begin(), tensors.end(), [](const json& t) { return t["name"] == "stats"; }),
        tensors.end());
    const auto file = dir / (graph + ".json");
    std::ofstream(file) << g.dump();
    const auto out = (dir / (graph + ".out.json")).string();
    const auto r = run_cli(run_args({"-g", file.string(), "--provider", "torch", "-o", out}));
    ASSERT_EQ(r.exit_code, 0) << graph << ": " << r.out << r.err;
    const auto doc = json::parse(read_text(out));
    std::set<std::string> engines, passed;
    for (const auto& row : doc["graphs"][0]["results"]) {
      engines.insert(row["engine_id"]);
      if (row["status"] == "success") {
        EXPECT_TRUE(row["correctness"]["passed"].get<bool>()) << graph << ": " << row.dump();
        passed.insert(row["engine_id"]);
      } else {
        EXPECT_EQ(row["status"], "skipped") << graph << ": " << row.dump();
        EXPECT_FALSE(row["skip_reason"].get<std::string>().empty()) << graph;
      }
    }
    EXPECT_EQ(engines, all) << graph;
    EXPECT_TRUE(passed.count("eager")) << graph << ": " << doc.dump();
    EXPECT_TRUE(passed.count("eager+sdpa=math")) << graph << ": " << doc.dump();
  }
}

}  // namespace
}  // namespace dnnbench::testing
