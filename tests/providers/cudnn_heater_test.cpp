// The device heater (providers/cuda/heater.hpp) and keeping the device warm between row groups
// (run/keep_warm.hpp) on a real GPU: the heater draws power until stopped, other streams' work
// still runs beside it, and a run whose group ended at the power cap records the heated gap in the
// next group's first row. Built with the cudnn provider (dnnbench_gpu_tests, label `gpu`); skipped
// where no CUDA device is.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <thread>

#include "cli_runner.hpp"
#include "env/gpu_clocks.hpp"
#include "measure/host_timer.hpp"
#include "providers/cuda/device.hpp"
#include "providers/cudnn/cudnn_provider.hpp"
#include "run/keep_warm.hpp"

namespace dnnbench::testing {
namespace {

using nlohmann::json;

#define REQUIRE_GPU() \
  if (!cudnn_device_available()) GTEST_SKIP() << "no CUDA device"

void sleep_ms(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

TEST(DeviceHeater, DrawsPowerUntilStoppedWhileOtherStreamsStillRun) {
  REQUIRE_GPU();
  auto provider = make_cudnn_provider();
  auto stream = provider->make_stream();
  auto heater = stream->make_heater();
  ASSERT_NE(heater, nullptr) << "the heater kernel is built with the cudnn provider";
  auto* clocks = gpu_clock_source(*provider);
  sleep_ms(1500);  // the power average falls after whatever ran before
  const double idle_w = clocks ? clocks->read().power_w : NAN;

  heater->start(5000);
  sleep_ms(1000);
  const auto loaded = clocks ? clocks->read() : ClockReading{};
  // Another stream's work is not starved: the heater's blocks last 25 us.
  void* buffer = nullptr;
  ASSERT_EQ(cudaMalloc(&buffer, 1 << 20), cudaSuccess);
  HostTimer beside;
  const auto cuda = cuda::cuda_stream_of(*stream);
  for (int i = 0; i < 20; ++i) ASSERT_EQ(cudaMemsetAsync(buffer, i, 1 << 20, cuda), cudaSuccess);
  stream->synchronize();
  const double beside_ms = beside.elapsed_ms();
  HostTimer stopping;
  heater->stop();
  const double stop_ms = stopping.elapsed_ms();
  cudaFree(buffer);
  std::cout << "idle " << idle_w << " W; heating " << loaded.power_w << " W of " << loaded.power_limit_w
            << " W at " << loaded.sm_mhz << " MHz (capped " << loaded.capped << "); 20 memsets beside it "
            << beside_ms << " ms; stop " << stop_ms << " ms\n";
  EXPECT_LT(beside_ms, 50);
  EXPECT_LT(stop_ms, 50);
  if (clocks && std::isfinite(idle_w) && std::isfinite(loaded.power_w)) {
    EXPECT_GT(loaded.power_w, idle_w + 100) << "the heater loads the device";
  }
  // Stopped twice, started again: each a no-op or a fresh start.
  heater->stop();
  heater->start(200);
  heater->start(200);
  sleep_ms(400);  // past its own limit: it stopped by itself
  HostTimer again;
  heater->stop();
  EXPECT_LT(again.elapsed_ms(), 20);
  // Started again after stopping by itself (without a stop between): it heats again.
  heater->start(300);
  sleep_ms(400);
  heater->start(5000);
  sleep_ms(100);
  HostTimer last;
  heater->stop();
  EXPECT_LT(last.elapsed_ms(), 20);
}

// Two heavy GEMM graphs with --keep-warm (each graph in the worker process, which keeps the heater): when the
// first one's row measured at the power cap, the heater kept the device loaded until the second graph's group
// measured, and that row says so.
TEST(KeepWarm, ARunRecordsTheHeatedGapAfterACappedGroup) {
  REQUIRE_GPU();
  TempDir dir;
  const auto out = dir / "run.json";
  const std::string gemm =
      std::string(DNNBENCH_SOURCE_DIR) + "/graphs/perf/gemm/llama2_7b_mlp_up_m2048_k4096_n11008_bf16.json";
  const std::string gemm2 =
      std::string(DNNBENCH_SOURCE_DIR) + "/graphs/perf/gemm/llama2_7b_qkv_m2048_k4096_n12288_bf16.json";
  const auto r = run_cli({"run", "-g", gemm, "-g", gemm2, "--provider", "cudnn", "--max-engines", "1", "-q",
                          "--keep-warm", "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto suite = json::parse(std::ifstream(out));
  const auto& first = suite["graphs"][0]["results"][0]["timing"];
  const auto& second = suite["graphs"][1]["results"][0]["timing"];
  if (first["other_regime"].is_null()) GTEST_SKIP() << "the first GEMM did not run at the power cap here";
  ASSERT_TRUE(second["kept_warm"].is_object()) << second.dump();
  std::cout << "kept warm: " << second["kept_warm"].dump() << "\n";
  EXPECT_GT(second["kept_warm"]["ms"].get<double>(), 0);
  EXPECT_TRUE(first["kept_warm"].is_null());
  // Off (the default): no heated gap.
  const auto off = dir / "off.json";
  const auto r2 = run_cli({"run", "-g", gemm, "-g", gemm2, "--provider", "cudnn", "--max-engines", "1", "-q",
                           "-o", off.string()});
  ASSERT_EQ(r2.exit_code, 0) << r2.out << r2.err;
  EXPECT_TRUE(json::parse(std::ifstream(off))["graphs"][1]["results"][0]["timing"]["kept_warm"].is_null());
}

}  // namespace
}  // namespace dnnbench::testing
