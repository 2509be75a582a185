#pragma once
// How much of a core this process's threads get now: a fixed integer loop whose independent
// operations keep a core's ALUs busy, timed on every thread of a team. On the 2-vCPU VM one vCPU
// at a time ran it 1.70x slower for 46% of a minute, in step with a two-thread oneDNN eltwise
// 1.40x slower; alone on one vCPU it read 1.38x in step with a one-thread eltwise 1.71x slower,
// while latency-bound loops (a dependent FMA chain, pointer chases) moved under 8%: the host shares
// the core with other work or clocks it down (bench/results/core-ruler.json). The loop's time is
// the same code on the same machine in every run, so two runs' readings say whether their rows
// ran on equally free cores.
#include <cstdint>
#include <optional>

namespace dnnbench {

struct CoreReading {
  double us = 0;       // the slowest thread's median loop time
  double best_us = 0;  // the lowest reading this process has had for this team size
};

// One reading over a team of `threads` threads (the OpenMP runtime's team where this build has
// one, else the calling thread alone): each runs the loop kRulerRuns times and reports its median;
// the reading is the slowest thread's, since a parallel region waits for its slowest thread.
// About 8 us on the VM. nullopt where no team could run.
std::optional<CoreReading> read_core_ruler(std::int64_t threads);

// Readings above this many times the best are a shared core: the VM's undisturbed readings lay
// within 1.008x of the best, its disturbed ones at 1.38-1.73x.
inline constexpr double kCoreDisturbedAbove = 1.15;

}  // namespace dnnbench
