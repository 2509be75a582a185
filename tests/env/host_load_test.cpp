#include "env/host_load.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace dnnbench {
namespace {

TEST(HostLoad, RecordsLoadGovernorAndOtherProcessesTime) {
  const HostLoadProbe probe;
  // Our own busy time is not "other processes'" time.
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  while (std::chrono::steady_clock::now() < until) {
  }
  const auto h = probe.finish(2);
  for (const char* key :
       {"load_average_start", "load_average_end", "wall_s", "logical_cores", "threads", "cpufreq_governor",
        "other_cpu_s", "other_cores", "free_cores", "oversubscribed", "disturbed", "disturbed_because"})
    EXPECT_TRUE(h.contains(key)) << key;
  EXPECT_EQ(h["threads"], 2);
  EXPECT_GE(h["wall_s"].get<double>(), 0.29);
  ASSERT_TRUE(h["other_cores"].is_number()) << "Linux has /proc/stat";
  const double other = h["other_cores"].get<double>(), cores = h["logical_cores"].get<double>();
  EXPECT_GE(other, 0);
  EXPECT_LE(other, cores + 0.1);
  EXPECT_NEAR(h["free_cores"].get<double>(), std::max(0.0, cores - other), 1e-9);
  const bool disturbed = h["disturbed"].get<bool>();
  EXPECT_EQ(disturbed,
            other >= std::max(kDisturbingOtherCores, 0.1 * cores) || h["oversubscribed"].get<bool>());
  EXPECT_EQ(h["disturbed_because"].is_string(), disturbed);
}

TEST(HostLoad, ThreadsFollowOmpNumThreads) {
  ::setenv("OMP_NUM_THREADS", "3", 1);
  EXPECT_EQ(cpu_threads_used(), 3);
  ::setenv("OMP_NUM_THREADS", "junk", 1);
  EXPECT_GE(cpu_threads_used(), 1);
  ::unsetenv("OMP_NUM_THREADS");
}

}  // namespace
}  // namespace dnnbench
