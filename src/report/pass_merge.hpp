#pragma once
// `run --repeat N` (isolate/repeat_passes.hpp) runs the suite as N passes, each in a fresh child
// process, one after another; this merges their results into one (docs/compare.md, "--repeat").
//   - Graphs are known by graph_path, rows by provider, engine id and engine label. The merged
//     result follows the first pass's order; what only a later pass has is appended.
//   - A row's figures are those of the pass whose median is the median of the passes' medians
//     (the lower middle one for an even count): one pass that a slow stretch of the machine hit
//     moves neither the reported figure nor, because it is one real measurement, its samples,
//     interval and correctness, which stay those of one process. row.repeat records every pass's
//     median, pass number and pid, and their spread (max / min - 1).
//   - A row that failed (error, validation failure) in any pass reports that failure: a failure
//     in one process is a failure.
#include <cstdint>
#include <vector>

#include "report/results.hpp"

namespace dnnbench {

struct PassRow {
  int pass = 0;           // 1..N
  std::int64_t pid = -1;  // the child that measured it; -1: unknown
  const RowResult* row = nullptr;
};

struct PassSuite {
  int pass = 0;
  std::int64_t pid = -1;
  SuiteResult suite;
};

// One row from its passes (at least one). Rows without a timed, passing measurement carry no
// median; a merged row with fewer than two medians has no repeat record.
RowResult merge_pass_rows(const std::vector<PassRow>& rows);

// The passes' graphs and rows merged; metadata, complete and stop_signal are left to the caller.
SuiteResult merge_pass_suites(const std::vector<PassSuite>& passes);

}  // namespace dnnbench
