#pragma once
// What a parallel region costs on this machine now: the median time of a fork-join of `threads`
// threads that spin on a shared counter, as an OpenMP runtime's threads spin between a library's
// parallel regions. On a 2-vCPU VM it moved between 0.95 and 1.35 us from one minute (or a few
// seconds) to the next, and two-thread oneDNN convolutions of 2-20 us moved up to 2.8x with it
// while single-thread runs did not (bench/results/cpu-thread-sync.json): a multi-threaded CPU
// row's time depends on that state as much as on its code, so each such row records it and
// `compare` does not judge two rows measured in different states.
#include <cstdint>
#include <optional>

namespace dnnbench {

// The median fork-join time in microseconds over `rounds` rounds (after a few unmeasured ones),
// by `threads` threads: this one and threads - 1 workers kept waiting (not spinning) between
// calls; about a millisecond a call, and never more than 20 ms: on a machine with more busy
// threads than cores the rounds taken by then make the median (a spin that waits long yields).
// A reading over 4x the best seen so far is taken once more 10 ms later and the lower kept: the
// library's own threads, still spinning after its last parallel region, are not the machine's
// state. nullopt for threads < 2, or when too few rounds fit the budget.
std::optional<double> thread_sync_us(std::int64_t threads, int rounds = 500);

}  // namespace dnnbench
