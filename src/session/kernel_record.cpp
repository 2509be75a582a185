#include "session/kernel_record.hpp"

#include <algorithm>

#include "providers/activity_names.hpp"

namespace dnnbench {

void record_kernels(PlanInstance& instance, std::int64_t batch, Measurement& m) {
  auto recorder = instance.stream().make_kernel_recorder();
  if (!recorder) return;
  // Back-to-back launches, not the graph replay: kernel records of launches are certain on every
  // CUPTI version, and a kernel's own duration does not depend on how it was launched. A quarter
  // of a batch (about 2.5 ms of executions), at least 3 and at most 100, gives a median: a whole
  // batch cost 10 ms a row (2.7 s of the ResNet-50 suite), and 100 records of a three-kernel plan
  // fit one CUPTI buffer.
  constexpr std::int64_t kRecordedExecutions = 100;
  const auto n = std::clamp<std::int64_t>(batch / 4, std::min<std::int64_t>(3, batch), kRecordedExecutions);
  recorder->start();
  for (std::int64_t i = 0; i < n; ++i) instance.execute();
  instance.stream().synchronize();
  auto records = recorder->stop();
  if (records.empty()) return;
  const auto executions = static_cast<std::size_t>(n);
  // Kernels of one execution are consecutive; a plan launches the same kernels every time, so
  // the records split evenly. When they do not (a plan that varies), one "execution" is the
  // whole batch divided evenly: the sum stays right, the kernel list is per batch.
  const bool even = records.size() % executions == 0;
  const std::size_t per = even ? records.size() / executions : records.size();
  const std::size_t groups = even ? executions : 1;
  const double scale = even ? 1.0 : 1.0 / static_cast<double>(executions);
  // The sum counts kernels only, as Nsight Compute's does (it profiles no memset or copy); the
  // memsets and copies CUPTI recorded (providers/activity_names.hpp) stay in the list below.
  std::vector<double> sums;
  for (std::size_t g = 0; g < groups; ++g) {
    double sum = 0;
    for (std::size_t j = 0; j < per; ++j) {
      const auto& r = records[g * per + j];
      if (is_kernel_name(r.name)) sum += static_cast<double>(r.end_ns - r.start_ns) * 1e-6;
    }
    sums.push_back(sum * scale);
  }
  m.kernel_sum = summarize(sums);
  for (std::size_t j = 0; j < per; ++j) {
    std::vector<double> durations;
    for (std::size_t g = 0; g < groups; ++g) {
      const auto& r = records[g * per + j];
      durations.push_back(static_cast<double>(r.end_ns - r.start_ns) * 1e-6);
    }
    const auto& first = records[j];
    // Consecutive launches of the same kernel and shape are one entry with a launch count.
    if (!m.kernels.empty() && m.kernels.back().name == first.name && m.kernels.back().grid == first.grid &&
        m.kernels.back().block == first.block) {
      ++m.kernels.back().launches;
      continue;
    }
    m.kernels.push_back(KernelSummary{first.name, first.grid, first.block, 1, summarize(durations).median});
  }
  if (!even)
    for (auto& k : m.kernels) k.launches = std::max<std::int64_t>(1, k.launches / n);
}

}  // namespace dnnbench
