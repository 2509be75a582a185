#pragma once
// Warm-up by time until steady (not by a fixed count): a GPU reaches its power cap, and its SM
// clock settles 13-27% under boost, only after some sustained load (shared/reference/ANCHORS.md),
// and a CPU's caches, page tables and frequency settle too. Samples are grouped in windows;
// the state is steady when the medians of the last few windows (and their mean SM clocks, when
// sampled) agree within a tolerance. A time cap bounds the search.
#include <cstdint>
#include <deque>
#include <limits>
#include <vector>

namespace dnnbench {

struct SteadyStateLimits {
  std::int64_t window_samples = 5;  // a median of 5 ignores one or two outliers per window
  std::int64_t windows = 3;         // three windows agreeing rules out a slow monotone drift
  double tolerance = 0.01;          // window medians within ±1% of each other
  double clock_tolerance = 0.02;    // window SM clocks within 2% (NVML reports in ~15 MHz steps)
  double max_ms = 500;              // --warmup-max-ms: give up (not steady) after this much sampling
  // A sustained device row (the enforced power limit known) that starts on an idle device is steady
  // no sooner than this much of its own load: a kernel that draws more than the limit runs at full
  // boost for the first 0.1-0.2 s, until the driver's next ~100 ms tick cuts the clock, and three
  // windows of 2 ms batches agree well before that. On the H100 the first row of 20 of 34 GEMM
  // graphs whose other engines ran at the cap was measured at boost, 5-10% fast; with 150 ms, 12 of
  // 13 at the cap (bench/results/capped-rounds.json). Rows that follow another's samples (a group's
  // later rows: none of them was caught at boost) take 0 (PlanSession::warm_up_until_steady).
  double min_load_ms = 150;
  // At the power cap the clock follows the power the driver averages (~1 s on the H200), so it
  // keeps falling for a second after the timings look steady over three 50 ms windows: a capped
  // row also waits until its power readings of the last power_span_ms agree within
  // power_tolerance, and for that may sample up to max_ms * capped_max_factor (the settle probe:
  // bench/results/power-settle.json). A span in time, not in windows: NVML's power moves in ~100 ms
  // ticks, and three windows of short samples can fall inside one tick and agree while the
  // average still climbs. Where the enforced limit is known the average must
  // also have reached power_near_limit of it: held at the cap, it climbs until it sits at the
  // limit (692-695 W of 700 on the H200), and a row that came in after an idle gap can hold 580 W
  // for 300 ms on the way (such rows read 1-4% fast).
  double power_tolerance = 0.02;
  double power_near_limit = 0.96;
  double power_span_ms = 300;
  double capped_max_factor = 4;
};

// What the device's sensors said while one warm-up sample ran (NaN / false: not read).
struct WarmupSensors {
  double sm_mhz = std::numeric_limits<double>::quiet_NaN();
  double power_w = std::numeric_limits<double>::quiet_NaN();
  // The enforced power limit, where the averaged power of a capped row settles (NaN: not known,
  // or not to wait for: a paced row's idle gaps keep its average under it).
  double power_limit_w = std::numeric_limits<double>::quiet_NaN();
  bool capped = false;  // the driver said the power cap or heat held the clock down
};

class SteadyStateDetector {
 public:
  explicit SteadyStateDetector(SteadyStateLimits limits) : limits_(limits) {}
  // One warm-up sample of `sample_ms`, with what the sensors read meanwhile; `elapsed_ms` the
  // sample's whole elapsed time, which the time cap counts.
  void add(double sample_ms, const WarmupSensors& sensors, double elapsed_ms);
  void add(double sample_ms, double sm_mhz, double elapsed_ms) {
    add(sample_ms, WarmupSensors{.sm_mhz = sm_mhz}, elapsed_ms);
  }
  void add(double sample_ms, double sm_mhz) { add(sample_ms, sm_mhz, sample_ms); }
  bool steady() const { return steady_; }
  bool finished() const { return steady_ || elapsed_ms_ >= max_ms(); }
  // The time cap now: max_ms, or max_ms * capped_max_factor while the latest window said capped.
  double max_ms() const { return capped() ? limits_.max_ms * limits_.capped_max_factor : limits_.max_ms; }
  // Whether a reading of the latest finished window (before the first: of the samples so far)
  // said the clock was held down; the power figure is then judged too.
  bool capped() const { return medians_.empty() ? window_capped_ : capped_; }
  std::int64_t samples() const { return samples_; }
  double elapsed_ms() const { return elapsed_ms_; }

 private:
  SteadyStateLimits limits_;
  bool power_settled() const;
  struct PowerReading {
    double at_ms, watts;  // at elapsed_ms()
  };
  std::vector<double> window_, window_clock_;
  std::vector<double> medians_, clocks_;  // one per finished window
  // The power readings of the last power_span_ms, and the one before them.
  std::deque<PowerReading> powers_;
  double power_limit_w_ = std::numeric_limits<double>::quiet_NaN();
  bool capped_ = false, window_capped_ = false;
  std::int64_t samples_ = 0;
  double elapsed_ms_ = 0;
  bool steady_ = false;
};

// (max - min) / min of the last `count` values (infinity when fewer).
double relative_spread_of_last(const std::vector<double>& values, std::int64_t count);

}  // namespace dnnbench
