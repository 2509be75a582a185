// The memory budget: estimates, MemAvailable parsing, and the refusals with their numbers.
#include "env/memory_budget.hpp"

#include <gtest/gtest.h>

#include "../support/graph_builder.hpp"

namespace dnnbench {
namespace {

// x [256, 256] fp32 -> relu -> y [256, 256] fp32: 256 KiB each.
constexpr std::int64_t kTensor = 256 * 256 * 4, kValues = 256 * 256 * 8;

// A device provider whose free memory the test sets.
class DeviceLikeProvider final : public Provider {
 public:
  explicit DeviceLikeProvider(std::optional<std::int64_t> free_bytes, DeviceKind kind = DeviceKind::cuda)
      : free_(free_bytes), kind_(kind) {}
  std::string_view name() const override { return "fake"; }
  DeviceKind device() const override { return kind_; }
  std::string version() const override { return "0"; }
  std::unique_ptr<Stream> make_stream() override { return nullptr; }
  std::optional<std::int64_t> device_memory_free() override { return free_; }
  std::vector<EngineInfo> engines(const Graph&) override { return {}; }
  PlanSpec heuristic_plan(const Graph&, const EngineInfo&) override { return {}; }
  std::vector<PlanSpec> plan_space(const Graph&, const EngineInfo&, const SweepLimits&) override {
    return {};
  }
  std::unique_ptr<Plan> build(const Graph&, const PlanSpec&) override { return nullptr; }

 private:
  std::optional<std::int64_t> free_;
  DeviceKind kind_;
};

TEST(MemoryBudget, HostEstimateCountsInputsReferenceAndPlanCopies) {
  const Graph g = testing::relu_square_graph(256);
  // inputs + reference (x, y) + per plan: x and y copies and y's fp64 values for the check.
  EXPECT_EQ(host_bytes_needed(g, 1), kTensor + 2 * kValues + (2 * kTensor + kValues));
  EXPECT_EQ(host_bytes_needed(g, 2), kTensor + 2 * kValues + 2 * (2 * kTensor + kValues));
  EXPECT_EQ(device_bytes_needed(g, 1), 2 * kTensor);
  EXPECT_EQ(device_bytes_needed(g, 2), 4 * kTensor);
  RunOptions options;
  EXPECT_EQ(live_plans(options), 1);
  options.oracle.enabled = true;
  EXPECT_EQ(live_plans(options), 2);
}

TEST(MemoryBudget, ParsesMemAvailable) {
  EXPECT_EQ(parse_mem_available("MemTotal:       24000000 kB\nMemFree:        17000000 kB\n"
                                "MemAvailable:   20000000 kB\nBuffers: 1 kB\n"),
            std::int64_t{20000000} * 1024);
  EXPECT_EQ(parse_mem_available("MemTotal: 1 kB\n"), std::nullopt);
  EXPECT_EQ(parse_mem_available(""), std::nullopt);
  EXPECT_EQ(parse_mem_available("MemAvailable: 12 MB\n"), std::nullopt);  // a unit the kernel never writes
  const auto here = host_memory_available();
  ASSERT_TRUE(here.has_value());  // Linux
  EXPECT_GT(*here, 0);
}

TEST(MemoryBudget, HostRefusalGivesNeededAndAllowedBytes) {
  const Graph g = testing::relu_square_graph(256);
  RunOptions options;
  options.max_memory = host_bytes_needed(g, 1);
  EXPECT_EQ(host_budget_refusal(g, options), "");
  options.max_memory = host_bytes_needed(g, 1) - 1;
  EXPECT_EQ(host_budget_refusal(g, options),
            "the graph needs 2.25 MiB (2359296 bytes) of host memory (inputs 0.25 MiB (262144 bytes), fp64 "
            "reference of every tensor 1.00 MiB (1048576 bytes), 1 plan copy of inputs and outputs 0.50 MiB "
            "(524288 bytes) each, fp64 outputs checked 0.50 MiB (524288 bytes) each), over the allowed 2.25 "
            "MiB (2359295 bytes) (--max-memory)");
  options.oracle.enabled = true;  // the paired re-timing holds two plans
  options.max_memory = host_bytes_needed(g, 1);
  EXPECT_NE(host_budget_refusal(g, options).find("2 plan copies"), std::string::npos);
}

TEST(MemoryBudget, DefaultHostAllowanceIsAFractionOfMemAvailable) {
  RunOptions options;
  const auto allowed = host_allowance(options);
  ASSERT_TRUE(allowed.has_value());
  EXPECT_LT(allowed->bytes, *host_memory_available());
  EXPECT_NE(allowed->source.find("80% of the"), std::string::npos) << allowed->source;
  EXPECT_NE(allowed->source.find("MemAvailable"), std::string::npos) << allowed->source;
  EXPECT_EQ(host_budget_refusal(testing::relu_square_graph(256), options),
            "");  // 2.25 MiB fits on any test machine
}

TEST(MemoryBudget, DeviceRefusalUsesTheProvidersFreeMemory) {
  const Graph g = testing::relu_square_graph(256);
  RunOptions options;
  DeviceLikeProvider roomy(std::int64_t{1} << 30);
  EXPECT_EQ(device_budget_refusal(g, options, roomy), "");
  DeviceLikeProvider tight(2 * kTensor);  // 90% of it is under the 2 copies needed
  EXPECT_EQ(
      device_budget_refusal(g, options, tight),
      "the graph needs 0.50 MiB (524288 bytes) of device memory (1 plan copy of inputs and outputs, 0.50 "
      "MiB (524288 bytes) each, before the workspace), over the allowed 0.45 MiB (471859 bytes) (90% of "
      "the 0.50 MiB (524288 bytes) free on the device; set --max-memory to change it)");
  DeviceLikeProvider unknown(std::nullopt);  // cannot say: no device budget
  EXPECT_EQ(device_budget_refusal(g, options, unknown), "");
  DeviceLikeProvider host(0, DeviceKind::host);  // covered by the host budget
  EXPECT_EQ(device_budget_refusal(g, options, host), "");
  options.max_memory = 1 << 20;  // --max-memory overrides what the device says
  EXPECT_EQ(device_budget_refusal(g, options, tight), "");
}

}  // namespace
}  // namespace dnnbench
