#pragma once
// Rows at the power cap, measured in interleaved rounds. On the H200 the driver cycles a capped
// clock about once a second, dipping for 0.1-0.3 s: a row's samples must fall across that cycle,
// or a short measurement reads anywhere from 3% fast to 9% slow (bench/results/power-settle.json).
// One row at a time, that costs each capped row a second (--capped-min-ms). Taken in turns, a
// chunk (one placement's share) of each row after another, the rows' chunks spread over the
// cycle together: G rows at the cap cost the span once, not G times, and each row's figure, the
// median of its chunks' medians, still comes from different phases of it.
#include <cstddef>
#include <functional>

namespace dnnbench {

// Calls `chunk(i)` for every participant i in [0, count) in turn, round after round, leaving out
// those whose chunk returned true (finished), until all have finished.
void interleave_chunks(std::size_t count, const std::function<bool(std::size_t)>& chunk);

}  // namespace dnnbench
