#pragma once
// What one measurement of a plan gives: its statistics and how they were taken.
#include <optional>
#include <vector>

#include "measure/stats.hpp"
#include "report/results.hpp"

namespace dnnbench {

struct Measurement {
  Stats host, kernel;  // kernel: n == 0 on host providers
  bool has_kernel = false;
  TimingInfo timing;
  std::vector<KernelSummary> kernels;  // CUPTI; empty without it
  std::optional<Stats> kernel_sum;     // per-execution sum of kernel durations (CUPTI)
  // The figure comparisons use: kernel time where there is one, else host time.
  const Stats& primary() const { return has_kernel ? kernel : host; }
};

}  // namespace dnnbench
