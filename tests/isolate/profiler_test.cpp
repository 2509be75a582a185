// Unit tests of --profile's logic (isolate/profiler.hpp): the spec, the refusals, the child's
// allowlisted command line, and reading ncu's raw-page CSV.
#include "isolate/profiler.hpp"
#include "providers/activity_names.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "tune/plans_from.hpp"

namespace dnnbench {
namespace {

// As `ncu --import X --csv --page raw --print-units base` writes it: a header, a units line, one
// line per launch. Three executions of a plan with two kernels, the second launched twice.
const char* kCsv =
    "==PROF== Connected to process\n"
    "\"ID\",\"Process ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"gpu__time_duration.sum\","
    "\"sm__throughput.avg.pct_of_peak_sustained_elapsed\",\"gpu__dram_throughput.avg.pct_of_peak_sustained_"
    "elapsed\",\"sm__warps_active.avg.pct_of_peak_sustained_active\",\"launch__registers_per_thread\","
    "\"launch__shared_mem_per_block_static\",\"launch__shared_mem_per_block_dynamic\"\n"
    "\"\",\"\",\"\",\"\",\"\",\"nsecond\",\"%\",\"%\",\"%\",\"register/thread\",\"byte\",\"byte\"\n"
    "\"0\",\"1\",\"conv_kernel<float, 4>\",\"(128, 1, 1)\",\"(64, 2, "
    "1)\",\"10,000\",\"80.5\",\"20.1\",\"45\",\"128\","
    "\"1024\",\"49152\"\n"
    "\"1\",\"1\",\"reduce\",\"(256, 1, 1)\",\"(8, 1, 1)\",\"500\",\"10\",\"60\",\"30\",\"32\",\"0\",\"0\"\n"
    "\"2\",\"1\",\"reduce\",\"(256, 1, 1)\",\"(8, 1, 1)\",\"700\",\"10\",\"60\",\"30\",\"32\",\"0\",\"0\"\n"
    "\"3\",\"1\",\"conv_kernel<float, 4>\",\"(128, 1, 1)\",\"(64, 2, "
    "1)\",\"12000\",\"80\",\"20\",\"45\",\"128\","
    "\"1024\",\"49152\"\n"
    "\"4\",\"1\",\"reduce\",\"(256, 1, 1)\",\"(8, 1, 1)\",\"600\",\"10\",\"60\",\"30\",\"32\",\"0\",\"0\"\n"
    "\"5\",\"1\",\"reduce\",\"(256, 1, 1)\",\"(8, 1, 1)\",\"600\",\"10\",\"60\",\"30\",\"32\",\"0\",\"0\"\n"
    "\"6\",\"1\",\"conv_kernel<float, 4>\",\"(128, 1, 1)\",\"(64, 2, "
    "1)\",\"11000\",\"81\",\"21\",\"45\",\"128\","
    "\"1024\",\"49152\"\n"
    "\"7\",\"1\",\"reduce\",\"(256, 1, 1)\",\"(8, 1, 1)\",\"600\",\"10\",\"60\",\"30\",\"32\",\"0\",\"0\"\n"
    "\"8\",\"1\",\"reduce\",\"(256, 1, 1)\",\"(8, 1, 1)\",\"600\",\"10\",\"60\",\"30\",\"32\",\"0\",\"0\"\n";

TEST(NcuCsv, KernelsAreGroupedByNameAndShapeWithMedianDurations) {
  const auto kernels = kernels_from_ncu_csv(kCsv, 3);
  ASSERT_EQ(kernels.size(), 2u);
  const auto& conv = kernels[0];
  EXPECT_EQ(conv.name, "conv_kernel<float, 4>");
  EXPECT_EQ(conv.launches, 1);
  EXPECT_DOUBLE_EQ(conv.duration_ms, 0.011);  // median of 10, 12, 11 us; "10,000" read as 10000 ns
  EXPECT_EQ(conv.grid, (std::array<int, 3>{64, 2, 1}));
  EXPECT_EQ(conv.block, (std::array<int, 3>{128, 1, 1}));
  EXPECT_DOUBLE_EQ(*conv.sm_throughput_pct, 80.5);
  EXPECT_DOUBLE_EQ(*conv.dram_throughput_pct, 20.1);
  EXPECT_DOUBLE_EQ(*conv.achieved_occupancy_pct, 45);
  EXPECT_EQ(*conv.registers_per_thread, 128);
  EXPECT_EQ(*conv.shared_memory_bytes, 1024 + 49152);
  EXPECT_EQ(kernels[1].launches, 2) << "six launches over three executions";
  EXPECT_DOUBLE_EQ(kernels[1].duration_ms, 0.0006);
}

TEST(NcuCsv, OtherTimeUnitsAreScaledAndMissingColumnsRefused) {
  const std::string csv = "\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"usecond\"\n\"k\",\"2.5\"\n";
  const auto kernels = kernels_from_ncu_csv(csv, 1);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_DOUBLE_EQ(kernels[0].duration_ms, 0.0025);
  EXPECT_FALSE(kernels[0].sm_throughput_pct.has_value());
  EXPECT_THROW(kernels_from_ncu_csv("\"Kernel Name\",\"Other\"\n\"\",\"\"\n", 1), std::runtime_error);
}

TEST(NcuCsv, SmFrequencyIsReadInMegahertzAndComparedWithTheRowsClock) {
  // SpeedOfLight's SM Frequency, in the base unit ncu writes (cycle/nsecond): two launches of a
  // long kernel at 1.80 and 1.84 GHz, one short one at 1.98.
  const std::string csv =
      "\"Kernel Name\",\"Block Size\",\"Grid Size\",\"gpu__time_duration.sum\",\"gpc__cycles_elapsed.avg.per_"
      "second\"\n"
      "\"\",\"\",\"\",\"nsecond\",\"cycle/nsecond\"\n"
      "\"gemm\",\"(384, 1, 1)\",\"(132, 1, 1)\",\"240000\",\"1.80\"\n"
      "\"gemm\",\"(384, 1, 1)\",\"(132, 1, 1)\",\"250000\",\"1.84\"\n"
      "\"reduce\",\"(256, 1, 1)\",\"(8, 1, 1)\",\"2000\",\"1.98\"\n";
  ProfileResult profile;
  profile.kernels = kernels_from_ncu_csv(csv, 2);
  ASSERT_EQ(profile.kernels.size(), 2u);
  EXPECT_NEAR(*profile.kernels[0].sm_frequency_mhz, 1820, 1e-9);  // median of 1800 and 1840
  EXPECT_NEAR(*profile.kernels[1].sm_frequency_mhz, 1980, 1e-9);
  RowResult row;
  TimingInfo timing;
  ClockSummary clocks;
  clocks.sm_mhz = MinMaxMean{1965, 1980, 1975};
  timing.clocks = clocks;
  row.timing = timing;
  compare_profile_with_row(profile, row);
  // Weighted by time: the 245 us kernel dominates the 2 us one.
  ASSERT_TRUE(profile.sm_frequency_mhz.has_value());
  EXPECT_NEAR(*profile.sm_frequency_mhz, (1820 * 0.245 + 1980 * 0.002) / 0.247, 1e-9);
  EXPECT_EQ(profile.row_sm_mhz, 1975);

  // Sections without the metric leave it null; another unit is scaled, an unknown one refused.
  EXPECT_FALSE(kernels_from_ncu_csv(kCsv, 3)[0].sm_frequency_mhz.has_value());
  const std::string hz =
      "\"Kernel Name\",\"gpu__time_duration.sum\",\"gpc__cycles_elapsed.avg.per_second\"\n\"\",\"nsecond\","
      "\"Hz\"\n\"k\",\"10\",\"1755000000\"\n";
  EXPECT_NEAR(*kernels_from_ncu_csv(hz, 1)[0].sm_frequency_mhz, 1755, 1e-9);
  const std::string odd =
      "\"Kernel Name\",\"gpu__time_duration.sum\",\"gpc__cycles_elapsed.avg.per_second\"\n\"\",\"nsecond\","
      "\"furlong\"\n\"k\",\"10\",\"1\"\n";
  EXPECT_THROW(kernels_from_ncu_csv(odd, 1), std::runtime_error);
}

TEST(ProfileVsRow, RatioToCuptiAndWhetherNcuSawTheRowsKernels) {
  RowResult row;
  row.kernels = {{"conv_kernel<float, 4>", {64, 2, 1}, {128, 1, 1}, 1, 0.0105},
                 {"reduce", {8, 1, 1}, {256, 1, 1}, 2, 0.0006}};
  Stats sum;
  sum.median = 0.0115;
  row.kernel_sum_stats = sum;
  auto profile = ProfileResult{};
  profile.kernels = kernels_from_ncu_csv(kCsv, 3);
  profile.kernel_sum_ms = 0.011 + 2 * 0.0006;
  compare_profile_with_row(profile, row);
  ASSERT_TRUE(profile.ratio_to_cupti.has_value());
  EXPECT_NEAR(*profile.ratio_to_cupti, 0.0122 / 0.0115, 1e-12);
  EXPECT_EQ(profile.same_kernels_as_row, true);
  EXPECT_TRUE(profile.kernels_not_in_row.empty());

  // A memset CUPTI recorded beside the kernels is not one ncu could have profiled.
  row.kernels.push_back({memset_activity_name(4096), {}, {}, 1, 0.0008});
  compare_profile_with_row(profile, row);
  EXPECT_EQ(profile.same_kernels_as_row, true);
  row.kernels.pop_back();
  EXPECT_FALSE(is_kernel_name(memcpy_activity_name(8)));
  EXPECT_TRUE(is_kernel_name("_ZN8cublasLt19splitKreduce_kernel"));

  // Another tile shape (grid) under ncu is another plan: named, and the flag is off.
  row.kernels[0].grid = {32, 2, 1};
  compare_profile_with_row(profile, row);
  EXPECT_EQ(profile.same_kernels_as_row, false);
  ASSERT_EQ(profile.kernels_not_in_row.size(), 1u);
  EXPECT_EQ(profile.kernels_not_in_row[0], "conv_kernel<float, 4> 64x2x1 128x1x1");

  // A row ncu saw only part of is not the same either.
  row.kernels[0].grid = {64, 2, 1};
  row.kernels.push_back({"extra", {1, 1, 1}, {32, 1, 1}, 1, 0.001});
  compare_profile_with_row(profile, row);
  EXPECT_EQ(profile.same_kernels_as_row, false);
  EXPECT_TRUE(profile.kernels_not_in_row.empty());

  // Without CUPTI (--no-kernel-activity) there is nothing to compare with.
  RowResult bare;
  ProfileResult alone;
  alone.kernels = profile.kernels;
  alone.kernel_sum_ms = 0.0122;
  compare_profile_with_row(alone, bare);
  EXPECT_FALSE(alone.ratio_to_cupti.has_value());
  EXPECT_FALSE(alone.same_kernels_as_row.has_value());
}

TEST(ProfileSpec, ParsesToolAndSectionsAndRefusesTheRest) {
  const auto plain = parse_profile_spec("ncu");
  EXPECT_EQ(plain.tool, "ncu");
  EXPECT_TRUE(plain.sections.empty());
  const auto with = parse_profile_spec("ncu:SpeedOfLight,Occupancy");
  EXPECT_EQ(with.sections, (std::vector<std::string>{"SpeedOfLight", "Occupancy"}));
  EXPECT_THROW(parse_profile_spec("vtune"), std::invalid_argument);
  EXPECT_THROW(parse_profile_spec("ncu:"), std::invalid_argument);
  EXPECT_THROW(parse_profile_spec("ncu:a;rm -rf"), std::invalid_argument);
}

TEST(ProfileRefusal, MissingNcuNsysAndAdminOnlyCounters) {
  auto request = parse_profile_spec("ncu");
  const auto missing = profiling_refusal(request, "/nonexistent-dir");
  EXPECT_NE(missing.find("ncu (Nsight Compute) is not on PATH"), std::string::npos) << missing;
  auto nsys = parse_profile_spec("nsys");
  EXPECT_NE(profiling_refusal(nsys, "/usr/bin").find("cannot turn it into a report"), std::string::npos);
  EXPECT_NE(
      counter_permission_problem("Foo: 1\nRmProfilingAdminOnly: 1\n", false).find("administrators only"),
      std::string::npos);
  EXPECT_EQ(counter_permission_problem("RmProfilingAdminOnly: 1\n", true), "");
  EXPECT_EQ(counter_permission_problem("RmProfilingAdminOnly: 0\n", false), "");

  // A fake ncu on PATH is found; an admin-only params file then refuses it.
  const auto dir = std::filesystem::temp_directory_path() / "dnnbench-profiler-test";
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "ncu") << "#!/bin/sh\n";
    std::ofstream(dir / "params") << "RmProfilingAdminOnly: 1\n";
  }
  std::filesystem::permissions(dir / "ncu", std::filesystem::perms::owner_all);
  auto found = parse_profile_spec("ncu");
  const auto refusal = profiling_refusal(found, "/nonexistent:" + dir.string(), dir / "params");
  EXPECT_EQ(found.tool_path, (dir / "ncu").string());
  if (::geteuid() != 0) {
    EXPECT_NE(refusal.find("RmProfilingAdminOnly"), std::string::npos) << refusal;
  } else {
    EXPECT_EQ(refusal, "") << "root reads the counters";
  }
  std::filesystem::remove_all(dir);
}

TEST(ProfileChild, CommandLineIsTheAllowlistAndNeverProfiles) {
  RowResult row;
  row.provider = "cudnn";
  row.engine_id = "12";
  row.plan_name = "12_k2=1";
  row.fp32_math = "tf32";
  RunOptions options;
  options.seed = 7;
  options.oracle.enabled = true;  // nothing of the parent's other options may reach the child
  options.provider_settings.cudnn_heur_mode = "b";
  const auto child_request = profile_child_request("/g/conv.json", row, options, 3);
  EXPECT_EQ(std::get<ProfiledPlan>(child_request.job).plan, "12_k2=1");
  const auto& child = child_request.run_arguments;
  const std::vector<std::string> allowed = {
      "-q",        "--progress",           "-g",          "--provider",     "--engine",
      "--seed",    "--fp32-math",          "--warmup",    "--iters",        "--batch",
      "--isolate", "--no-kernel-activity", "--heur-mode", "--compile-ahead"};
  for (const auto& argument : child) {
    if (argument.rfind("-", 0) != 0) continue;
    EXPECT_NE(std::find(allowed.begin(), allowed.end(), argument), allowed.end()) << argument;
    EXPECT_NE(argument, "--profile");
    EXPECT_NE(argument, "--oracle");
  }
  const auto at = [&](const std::string& flag) { return *(std::find(child.begin(), child.end(), flag) + 1); };
  EXPECT_EQ(at("-g"), "/g/conv.json");
  EXPECT_EQ(at("--engine"), "12");
  EXPECT_EQ(at("--seed"), "7");
  EXPECT_EQ(at("--compile-ahead"), "0");  // nothing compiles beside the profiled row
  EXPECT_EQ(at("--fp32-math"), "tf32");
  EXPECT_EQ(at("--iters"), "3");
  EXPECT_EQ(at("--isolate"), "none");
  EXPECT_EQ(at("--heur-mode"), "b");

  ProfileRequest request = parse_profile_spec("ncu:SpeedOfLight");
  request.tool_path = "/opt/ncu";
  const auto full = ncu_command(request, "/out/row", child);
  EXPECT_EQ(full[0], "/opt/ncu");
  EXPECT_EQ(*(std::find(full.begin(), full.end(), "--profile-from-start") + 1), "off");
  EXPECT_EQ(*(std::find(full.begin(), full.end(), "--clock-control") + 1), "none");
  EXPECT_EQ(*(std::find(full.begin(), full.end(), "--section") + 1), "SpeedOfLight");
  EXPECT_EQ(*(std::find(full.begin(), full.end(), "-o") + 1), "/out/row");
  EXPECT_EQ(std::vector<std::string>(full.end() - static_cast<std::ptrdiff_t>(child.size()), full.end()),
            child);
}

TEST(PlansFrom, SlowerOnlyBeyondTheStoredCIAndTheMinimumEffect) {
  EXPECT_FALSE(got_slower(1.00, 1.00, 0.01));
  EXPECT_FALSE(got_slower(1.005, 1.00, 0.01)) << "inside the minimum effect";
  EXPECT_TRUE(got_slower(1.05, 1.00, 0.01));
  EXPECT_FALSE(got_slower(0.90, 1.00, 0.01)) << "faster is not slower";
}

}  // namespace
}  // namespace dnnbench
