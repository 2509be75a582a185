#pragma once
// A row's measurement over buffer placements (--placements; docs/methodology.md, "Placement"):
// each chunk's median and how far they spread, the run-to-run noise `compare` judges against.
#include <vector>

#include "report/results.hpp"

namespace dnnbench {

// The chunks' medians (empty chunks left out) and their spread, max / min - 1. `chunks`: each
// placement's samples of the primary figure, in the order taken.
TimingInfo::Placements summarize_placements(const std::vector<std::vector<double>>& chunks);

}  // namespace dnnbench
