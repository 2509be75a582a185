#include "report/peaks.hpp"

#include <gtest/gtest.h>

namespace dnnbench {
namespace {

using nlohmann::json;

json h200_metadata() {
  return {{"providers",
           {{"cudnn",
             {{"version", "9.19.0"},
              {"device",
               {{"device", "NVIDIA H200"},
                {"compute_capability", "9.0"},
                {"sm_count", "132"},
                {"max_sm_clock_mhz", "1980"}}}}}}}};
}

GraphResult typed_graph(const std::string& type, std::vector<std::string> ops) {
  GraphResult g;
  g.data_type = type;
  g.ops = std::move(ops);
  return g;
}

RowResult gpu_row(std::optional<double> sm_mhz) {
  RowResult row;
  row.provider = "cudnn";
  row.gpu_kernel_stats = summarize({1.0, 1.0, 1.0});
  row.analytical_flops = 494.7e9;   // per ms: 494.7 TFLOP/s at 1 ms
  row.analytical_io_bytes = 2.4e9;  // 2.4 TB/s at 1 ms
  TimingInfo t;
  if (sm_mhz) {
    ClockSummary c;
    c.sm_mhz = MinMaxMean{*sm_mhz, *sm_mhz, *sm_mhz};
    t.clocks = c;
  }
  row.timing = t;
  return row;
}

TEST(Peaks, H200Fp16TensorPeakScalesWithTheMeasuredClock) {
  const auto g = typed_graph("half", {"conv_fwd"});
  const auto at_max = peak_for_row(h200_metadata(), g, gpu_row(std::nullopt));
  ASSERT_TRUE(at_max);
  // 132 SMs x 4096 FLOP/clk x 1980 MHz = 1070.5 TFLOP/s dense fp16.
  EXPECT_NEAR(*at_max->matrix_flops / 1e12, 1070.5, 0.5);
  EXPECT_NEAR(*at_max->dram_bytes_per_s, 4.8e12, 1);
  EXPECT_NE(at_max->source.find("maximum clock"), std::string::npos);
  const auto at_1830 = peak_for_row(h200_metadata(), g, gpu_row(1830.0));
  EXPECT_NEAR(*at_1830->matrix_flops / 1e12, 989.4, 0.5);  // the datasheet's dense figure
  EXPECT_NE(at_1830->source.find("1830 MHz (measured during the row)"), std::string::npos);
}

TEST(Peaks, ShareUsesMatrixUnitsForConvAndVectorForPointwise) {
  auto row = gpu_row(1830.0);
  const auto conv = typed_graph("half", {"conv_fwd", "pointwise"});
  row.peak = peak_for_row(h200_metadata(), conv, row);
  const auto s = peak_share(conv, row);
  EXPECT_EQ(s.flops_basis, "matrix");
  EXPECT_NEAR(*s.flops, 0.5, 0.01);
  EXPECT_NEAR(*s.bandwidth, 0.5, 0.001);
  const auto pw = typed_graph("half", {"pointwise"});
  EXPECT_EQ(peak_share(pw, row).flops_basis, "vector");
}

TEST(Peaks, Fp32UsesTf32TensorAndFp32VectorRates) {
  const auto p = peak_for_row(h200_metadata(), typed_graph("float", {"matmul"}), gpu_row(1980.0));
  ASSERT_TRUE(p);
  EXPECT_NEAR(*p->vector_flops / 1e12, 66.9, 0.1);   // 132 x 256 x 1.98 GHz
  EXPECT_NEAR(*p->matrix_flops / 1e12, 535.2, 0.5);  // TF32
}

TEST(Peaks, UnknownGpuOrTypeHasNoFigures) {
  auto meta = h200_metadata();
  meta["providers"]["cudnn"]["device"]["compute_capability"] = "7.0";
  EXPECT_FALSE(peak_for_row(meta, typed_graph("half", {"conv_fwd"}), gpu_row(1500.0)));
  EXPECT_FALSE(peak_for_row(h200_metadata(), typed_graph("", {"conv_fwd"}), gpu_row(1500.0)));
}

TEST(Peaks, CpuFromIsaClockAndCores) {
  const json meta = {{"providers", {{"onednn", {{"version", "3.5"}}}}},
                     {"host",
                      {{"cpu_model", "AMD EPYC"},
                       {"cpu_flags", {"sse4_1", "avx", "avx2", "fma", "avx512f", "avx512_bf16"}},
                       {"cpu_mhz", 2000.0},
                       {"logical_cores", 4}}},
                     {"environment", {{"OMP_NUM_THREADS", "2"}}}};
  RowResult row;
  row.provider = "onednn";
  row.host_stats = summarize({1.0});
  const auto p = peak_for_row(meta, typed_graph("float", {"conv_fwd"}), row);
  ASSERT_TRUE(p);
  EXPECT_NEAR(*p->vector_flops, 64.0 * 2 * 2000e6, 1);  // avx512: 64 FLOP/cycle, 2 threads
  EXPECT_FALSE(p->matrix_flops);
  EXPECT_FALSE(p->dram_bytes_per_s);
  EXPECT_NE(p->source.find("avx512f"), std::string::npos);
  EXPECT_NE(p->source.find("OMP_NUM_THREADS"), std::string::npos);
  const auto bf16 = peak_for_row(meta, typed_graph("bfloat16", {"matmul"}), row);
  EXPECT_NEAR(*bf16->vector_flops, 2 * 64.0 * 2 * 2000e6, 1);
}

TEST(Peaks, MeasuredPeaksTakePrecedence) {
  auto meta = h200_metadata();
  meta["measured_peaks"] = json::array({{{"provider", "cudnn"},
                                         {"data_type", "half"},
                                         {"device", "NVIDIA H200"},
                                         {"matrix_flops", 7e14},
                                         {"bytes_per_s", 4.1e12},
                                         {"file", "cal.json"}}});
  const auto p = peak_for_row(meta, typed_graph("half", {"conv_fwd"}), gpu_row(1800.0));
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(*p->matrix_flops, 7e14);
  EXPECT_NE(p->source.find("measured"), std::string::npos);
  // A calibration of another device does not apply: the table is used.
  meta["measured_peaks"][0]["device"] = "NVIDIA A100-SXM4-80GB";
  const auto table = peak_for_row(meta, typed_graph("half", {"conv_fwd"}), gpu_row(1800.0));
  ASSERT_TRUE(table);
  EXPECT_NE(table->source.find("table:"), std::string::npos);
}

}  // namespace
}  // namespace dnnbench
