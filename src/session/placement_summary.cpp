#include "session/placement_summary.hpp"

#include <algorithm>
#include <cmath>

#include "measure/stats.hpp"

namespace dnnbench {
namespace {

double spread_of(const std::vector<double>& medians) {
  if (medians.empty()) return 0;
  const auto [lo, hi] = std::minmax_element(medians.begin(), medians.end());
  return *lo > 0 ? *hi / *lo - 1 : 0;
}

// The median of time x clock over the chunk's samples with a reading; nullopt when fewer than
// half of them had one.
std::optional<double> median_at_clock(const PlacementChunk& chunk) {
  std::vector<double> cycles;
  for (std::size_t i = 0; i < chunk.ms.size() && i < chunk.sm_mhz.size(); ++i)
    if (std::isfinite(chunk.sm_mhz[i]) && chunk.sm_mhz[i] > 0)
      cycles.push_back(chunk.ms[i] * chunk.sm_mhz[i]);
  if (cycles.empty() || 2 * cycles.size() < chunk.ms.size()) return std::nullopt;
  return median_of(cycles);
}

}  // namespace

TimingInfo::Placements summarize_placements(const std::vector<PlacementChunk>& chunks, bool at_power_cap) {
  TimingInfo::Placements p;
  std::vector<double> at_clock;
  bool every_chunk_clocked = true;
  for (const auto& c : chunks) {
    if (c.ms.empty()) continue;
    p.medians_ms.push_back(median_of(c.ms));
    if (const auto m = median_at_clock(c))
      at_clock.push_back(*m);
    else
      every_chunk_clocked = false;
  }
  p.chunks = static_cast<std::int64_t>(p.medians_ms.size());
  p.spread = spread_of(p.medians_ms);
  if (at_power_cap && every_chunk_clocked && p.chunks > 1) p.spread_at_clock = spread_of(at_clock);
  return p;
}

}  // namespace dnnbench
