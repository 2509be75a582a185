// The cuBLASLt provider on the GPU: engines in heuristic order with bounded plan spaces, every
// engine's heuristic plan run through the row runner (CUDA-graph replay, CUPTI kernels) and
// checked against the reference, epilogues included. Label `gpu`; skipped without a CUDA device,
// where the no-device test checks the soft failure instead.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>

#include "../support/graph_builder.hpp"
#include "../support/hang_stack.hpp"
#include "../support/sample_graph.hpp"
#include "graph/reader.hpp"
#include "providers/cublaslt/cublaslt_provider.hpp"
#include "run/row_runner.hpp"
#include "session/graph_data.hpp"

namespace dnnbench {
namespace {

[[maybe_unused]] const bool kHangDumpArmed = testing::arm_hang_stack_dump();

bool have_device() {
  return make_cublaslt_provider()->unusable_reason().empty();
}

#define REQUIRE_GPU() \
  if (!have_device()) GTEST_SKIP() << "no CUDA device"

TEST(CublasLtProvider, NoDeviceIsASoftFailure) {
  if (have_device()) GTEST_SKIP() << "a CUDA device is present";
  auto provider = make_cublaslt_provider();
  EXPECT_NE(provider->unusable_reason().find("no CUDA device"), std::string::npos)
      << provider->unusable_reason();
  auto stream = provider->make_stream();  // must not throw without a device
  try {
    provider->engines(testing::sample_graph("matmul_fp16"));
    FAIL() << "engines() should throw Unsupported without a device";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("no CUDA device"), std::string::npos) << e.what();
  }
}

TEST(CublasLtProvider, EnginesInHeuristicOrderWithBoundedPlanSpaces) {
  REQUIRE_GPU();
  auto provider = make_cublaslt_provider();
  EXPECT_EQ(provider->version().rfind("cuBLASLt 13.", 0), 0u) << provider->version();
  const Graph graph = testing::sample_graph("matmul_fp16");
  const auto engines = provider->engines(graph);
  ASSERT_FALSE(engines.empty());
  // The first engine is the heuristic's pick: it has heuristic configs.
  const auto first_notes = engines.front().notes;
  EXPECT_TRUE(std::none_of(first_notes.begin(), first_notes.end(),
                           [](const std::string& n) { return n == "heuristic configs: 0"; }));
  for (std::size_t i = 0; i < std::min<std::size_t>(engines.size(), 3); ++i) {
    const auto& e = engines[i];
    EXPECT_EQ(e.id.rfind("algo", 0), 0u);
    const auto heuristic = provider->heuristic_plan(graph, e);
    EXPECT_EQ(heuristic.engine_id, e.id);
    const auto space = provider->plan_space(graph, e, SweepLimits{8});
    ASSERT_FALSE(space.empty()) << e.id;
    EXPECT_LE(space.size(), 8u);
    EXPECT_EQ(space.front().name(), heuristic.name());
    for (const auto& spec : space) EXPECT_NO_THROW(provider->build(graph, spec)) << spec.name();
  }
}

// The first `max_engines` engines' heuristic plans pass validation or are skipped with
// cuBLASLt's reason; at least one passes and is timed by CUDA-graph replay with CUPTI kernels.
void expect_rows_pass(const Graph& graph, std::size_t max_engines = 4) {
  SCOPED_TRACE(graph.name);
  auto provider = make_cublaslt_provider();
  auto stream = provider->make_stream();
  GraphData data(graph, 42);
  RunOptions options;
  options.warmup = 1;
  options.iters = 3;
  int passed = 0, replayed = 0;
  const auto engines = provider->engines(graph);
  for (std::size_t i = 0; i < std::min(max_engines, engines.size()); ++i) {
    const auto& engine = engines[i];
    // Progress on stderr: ctest shows it when a row hangs past the test's timeout.
    std::fprintf(stderr, "[row] %s %s\n", graph.name.c_str(), engine.id.c_str());
    const RowResult row = run_row(data, *provider, *stream, engine, options);
    SCOPED_TRACE(engine.id + " " + row.plan_name.value_or(""));
    if (row.status == RowStatus::skipped) {
      EXPECT_TRUE(row.skip_reason && !row.skip_reason->empty());
      continue;
    }
    ASSERT_EQ(row.status, RowStatus::success) << row.error_message.value_or("");
    ASSERT_TRUE(row.correctness);
    const bool tf32 =
        std::find(engine.notes.begin(), engine.notes.end(), kTf32MathNote) != engine.notes.end();
    EXPECT_TRUE(row.correctness->passed || (tf32 && row.correctness->norm_rel_error < 1e-3))
        << "norm rel error " << row.correctness->norm_rel_error;
    ASSERT_TRUE(row.timing);
    ASSERT_TRUE(row.gpu_kernel_stats);
    replayed += row.timing->method.rfind("cuda-graph-replay(", 0) == 0;
    passed += row.correctness->passed;
  }
  EXPECT_GT(passed, 0);
  EXPECT_GT(replayed, 0);
}

TEST(CublasLtProvider, MatmulRowsPass) {
  REQUIRE_GPU();
  expect_rows_pass(testing::sample_graph("matmul_fp16"));
  expect_rows_pass(testing::sample_graph("matmul_batched_bf16"));
  expect_rows_pass(testing::sample_graph("matmul_plain_fp32"));
}

TEST(CublasLtProvider, BroadcastBatchRowsPass) {
  REQUIRE_GPU();
  testing::GraphBuilder g("broadcast_batch_fp16", DataType::f16);
  const auto a = g.tensor("a", {4, 32, 64}, DataType::f16);
  const auto b = g.tensor("b", {64, 48}, DataType::f16);  // shared by every batch: stride 0
  const auto c = g.tensor("c", {4, 32, 48}, DataType::f16);
  g.node("MatmulAttributes", OpKind::matmul, {{"a", a}, {"b", b}}, {{"c", c}}, MatmulParams{});
  expect_rows_pass(g.build());
}

Graph epilogue_graph(const std::string& name, bool bias, std::optional<PointwiseOp> act) {
  testing::GraphBuilder g(name, DataType::f16);
  const auto a = g.tensor("a", {2, 32, 64}, DataType::f16);
  const auto b = g.tensor("b", {64, 48}, DataType::f16);
  const int steps = (bias ? 1 : 0) + (act ? 1 : 0);
  auto cur = g.virtual_tensor("mm", {2, 32, 48});
  g.node("MatmulAttributes", OpKind::matmul, {{"a", a}, {"b", b}}, {{"c", cur}}, MatmulParams{});
  int step = 0;
  const auto next = [&] {
    return ++step == steps ? g.tensor("y", {2, 32, 48}, DataType::f16) : g.virtual_tensor("t", {2, 32, 48});
  };
  if (bias) {
    const auto bias_uid = g.tensor("bias", {1, 1, 48}, DataType::f16);
    const auto out = next();
    PointwiseParams p;
    p.op = PointwiseOp::add;
    g.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", cur}, {"in_1", bias_uid}}, {{"out_0", out}},
           p);
    cur = out;
  }
  if (act) {
    const auto out = next();
    PointwiseParams p;
    p.op = *act;
    g.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", cur}}, {{"out_0", out}}, p);
  }
  return g.build();
}

TEST(CublasLtProvider, EpilogueRowsPass) {
  REQUIRE_GPU();
  expect_rows_pass(epilogue_graph("mm_bias", true, std::nullopt));
  expect_rows_pass(epilogue_graph("mm_relu", false, PointwiseOp::relu));
  expect_rows_pass(epilogue_graph("mm_bias_relu", true, PointwiseOp::relu));
  expect_rows_pass(epilogue_graph("mm_gelu", false, PointwiseOp::gelu_tanh));
  expect_rows_pass(epilogue_graph("mm_bias_gelu", true, PointwiseOp::gelu_tanh));
}

TEST(CublasLtProvider, InexpressibleGraphsAreUnsupportedWithTheReason) {
  REQUIRE_GPU();
  auto provider = make_cublaslt_provider();
  try {
    provider->engines(testing::sample_graph("fused_matmul_bias_gelu"));  // erf GELU: no cuBLASLt epilogue
    FAIL() << "erf GELU should be unsupported";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("tanh"), std::string::npos) << e.what();
  }
  EXPECT_THROW(provider->engines(testing::sample_graph("conv_fwd_2d_nhwc_fp16")), Unsupported);
}

}  // namespace
}  // namespace dnnbench
