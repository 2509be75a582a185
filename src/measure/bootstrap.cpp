#include "measure/bootstrap.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "measure/stats.hpp"

namespace dnnbench {
namespace {

// splitmix64: small, fast and the same on every platform (std:: distributions are not).
class SplitMix {
 public:
  explicit SplitMix(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Multiply-shift instead of a modulo: the draw dominates the bootstrap's cost.
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(((next() >> 32) * n) >> 32); }

 private:
  std::uint64_t state_;
};

}  // namespace

RatioInterval bootstrap_median_ratio(const std::vector<double>& a, const std::vector<double>& b,
                                     int resamples, std::uint64_t seed) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  if (a.empty() || b.empty() || resamples < 1) return {nan, nan, nan};
  RatioInterval out;
  out.ratio = median_of(b) / median_of(a);
  SplitMix rng(seed);
  std::vector<double> ratios, da(a.size()), db(b.size());
  ratios.reserve(static_cast<std::size_t>(resamples));
  for (int r = 0; r < resamples; ++r) {
    for (auto& x : da) x = a[rng.below(a.size())];
    for (auto& x : db) x = b[rng.below(b.size())];
    ratios.push_back(median_in_place(db) / median_in_place(da));
  }
  std::sort(ratios.begin(), ratios.end());
  out.lo = quantile_sorted(ratios, 0.025);
  out.hi = quantile_sorted(ratios, 0.975);
  return out;
}

}  // namespace dnnbench
