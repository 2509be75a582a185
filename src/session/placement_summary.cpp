#include "session/placement_summary.hpp"

#include <algorithm>

#include "measure/stats.hpp"

namespace dnnbench {

TimingInfo::Placements summarize_placements(const std::vector<std::vector<double>>& chunks) {
  TimingInfo::Placements p;
  for (const auto& c : chunks)
    if (!c.empty()) p.medians_ms.push_back(median_of(c));
  p.chunks = static_cast<std::int64_t>(p.medians_ms.size());
  if (p.chunks > 0) {
    const auto [lo, hi] = std::minmax_element(p.medians_ms.begin(), p.medians_ms.end());
    p.spread = *lo > 0 ? *hi / *lo - 1 : 0;
  }
  return p;
}

}  // namespace dnnbench
