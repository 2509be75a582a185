#include "sys/core_ruler.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <map>
#include <mutex>
#include <vector>

namespace dnnbench {
namespace {

// Runs of the loop a thread's reading is the median of: one interrupt does not move it.
constexpr int kRulerRuns = 5;

// Six unsigned chains of adds and xors that feed each other, 2000 rounds (about 1.3 us on the
// VM's EPYC): throughput-bound on the integer ALUs, where a dependent floating-point chain (the
// probe sys/thread_sync_probe.cpp spins with) is latency-bound and barely feels a shared core.
// Unsigned: wrap-around is defined, so no sanitizer adds checks that would change its time.
double loop_us() {
  unsigned a = 1, b = 2, c = 3, d = 4, e = 5, f = 6;
  const auto start = std::chrono::steady_clock::now();
  for (unsigned i = 0; i < 2000; ++i) {
    a += i;
    b ^= a;
    c += b;
    d ^= i;
    e += d;
    f ^= e;
    // Keeps the compiler from folding the rounds into a closed form.
    asm volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(e), "+r"(f));
  }
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
}

double thread_reading_us() {
  std::array<double, kRulerRuns> runs{};
  for (auto& r : runs) r = loop_us();
  std::nth_element(runs.begin(), runs.begin() + kRulerRuns / 2, runs.end());
  return runs[kRulerRuns / 2];
}

double team_reading_us(std::int64_t threads) {
#ifdef _OPENMP
  if (threads >= 2) {
    double slowest = 0;
#pragma omp parallel num_threads(static_cast <int>(threads)) reduction(max : slowest)
    slowest = thread_reading_us();
    return slowest;
  }
#else
  (void)threads;
#endif
  return thread_reading_us();
}

}  // namespace

std::optional<CoreReading> read_core_ruler(std::int64_t threads) {
  if (threads < 1) return std::nullopt;
  const double us = team_reading_us(threads);
  if (!(us > 0)) return std::nullopt;
  static std::mutex mutex;
  static std::map<std::int64_t, double> best_us;
  std::lock_guard lock(mutex);
  auto& best = best_us[threads];
  if (best <= 0 || us < best) best = us;
  return CoreReading{us, best};
}

}  // namespace dnnbench
