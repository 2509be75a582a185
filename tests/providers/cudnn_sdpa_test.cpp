// Attention on the GPU: the CUDA reference kernels against the fp64 CPU reference (forward and
// backward, every mask, grouped heads), and cuDNN's fused-attention rows of the sample graphs
// checked by the row runner. Built with the cudnn provider (dnnbench_gpu_tests, label `gpu`);
// skipped where no CUDA device is.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "../support/sample_graph.hpp"
#include "graph/reader.hpp"
#include "providers/cudnn/cudnn_provider.hpp"
#include "reference/gpu_reference.hpp"
#include "run/row_runner.hpp"
#include "session/graph_data.hpp"

namespace dnnbench {
namespace {

#define REQUIRE_GPU_REFERENCE() \
  if (const auto why = gpu_reference_unavailable_reason(); !why.empty()) GTEST_SKIP() << why

// Largest |gpu - cpu| relative to the largest |cpu| over every graph output.
void expect_gpu_matches_cpu(const std::string& name) {
  SCOPED_TRACE(name);
  const Graph graph = testing::sample_graph(name);
  GraphData data(graph, 7);
  const Values& cpu = data.reference(ReferenceKind::cpu_fp64);
  const Values& gpu = data.reference(ReferenceKind::gpu_fp32);
  for (auto uid : graph.output_uids()) {
    const auto& want = cpu.at(uid).data;
    const auto& got = gpu.at(uid).data;
    ASSERT_EQ(want.size(), got.size());
    double scale = 0, worst = 0;
    for (double w : want)
      if (std::isfinite(w)) scale = std::max(scale, std::abs(w));
    for (std::size_t i = 0; i < want.size(); ++i) {
      if (!std::isfinite(want[i])) {
        EXPECT_EQ(got[i], want[i]) << graph.tensor(uid).name << "[" << i << "]";
        continue;
      }
      worst = std::max(worst, std::abs(got[i] - want[i]));
    }
    EXPECT_LT(worst, 1e-5 * std::max(scale, 1.0)) << graph.tensor(uid).name;
  }
}

TEST(CudaSdpaReference, MatchesTheCpuReferenceOnEverySample) {
  REQUIRE_GPU_REFERENCE();
  for (const char* name : {"sdpa_fwd_fp16", "sdpa_fwd_causal_gqa_bf16", "sdpa_fwd_bottom_right_window_fp16",
                           "sdpa_fwd_padding_fp16", "sdpa_bwd_fp16", "sdpa_bwd_causal_gqa_bf16"})
    expect_gpu_matches_cpu(name);
}

// cuDNN's rows of an attention sample: at least one engine builds and passes, none fails.
void expect_cudnn_rows_pass(const std::string& name) {
  SCOPED_TRACE(name);
  auto provider = make_cudnn_provider();
  auto stream = provider->make_stream();
  const Graph graph = testing::sample_graph(name);
  GraphData data(graph, 42);
  RunOptions options;
  options.warmup = 1;
  options.iters = 3;
  int passed = 0;
  for (const auto& engine : provider->engines(graph)) {
    const RowResult row = run_row(data, *provider, *stream, engine, options);
    SCOPED_TRACE(engine.id + " " + row.plan_name.value_or("") + " " + row.skip_reason.value_or(""));
    if (row.status == RowStatus::skipped) continue;
    ASSERT_EQ(row.status, RowStatus::success) << row.error_message.value_or("");
    ASSERT_TRUE(row.correctness);
    EXPECT_TRUE(row.correctness->passed) << "norm rel error " << row.correctness->norm_rel_error;
    passed += row.correctness->passed;
  }
  EXPECT_GT(passed, 0);
}

TEST(CudnnSdpa, ForwardRowsPass) {
  if (!cudnn_device_available()) GTEST_SKIP() << "no CUDA device";
  for (const char* name : {"sdpa_fwd_fp16", "sdpa_fwd_causal_gqa_bf16", "sdpa_fwd_bottom_right_window_fp16"})
    expect_cudnn_rows_pass(name);
}

}  // namespace
}  // namespace dnnbench
