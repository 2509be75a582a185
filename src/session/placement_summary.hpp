#pragma once
// A row's measurement over buffer placements (--placements; docs/methodology.md, "Placement"):
// each chunk's median and how far they spread, the run-to-run noise `compare` judges against.
#include <vector>

#include "report/results.hpp"

namespace dnnbench {

// One placement's samples: the primary figure of each (ms per execution) and the SM clock NVML
// read as it ended (MHz; NaN where none was read, e.g. the warm-up's samples a chunk reuses).
struct PlacementChunk {
  std::vector<double> ms, sm_mhz;
  void add(double sample_ms, double mhz) {
    ms.push_back(sample_ms);
    sm_mhz.push_back(mhz);
  }
};

// The chunks' medians (empty chunks left out) and their spread, max / min - 1. `at_power_cap`: the
// row was held at its power cap, where the driver cycles the clock about once a second and a
// third of a second's chunk holds a third of the cycle: chunks of a capped GEMM then differ by
// 2-14% by where in the cycle they fell, not by where their buffers lie. There the spread of the
// chunks' medians of time x SM clock (the cycles an execution takes, which the cycle does not
// move) is recorded too (spread_at_clock), when every chunk had clock readings for at least half
// its samples.
TimingInfo::Placements summarize_placements(const std::vector<PlacementChunk>& chunks, bool at_power_cap);

}  // namespace dnnbench
