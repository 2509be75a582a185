#pragma once
// `run --repeat N` (N >= 2): the suite as N passes, each in a fresh child process of this same
// binary (isolate/child_process.hpp), pass k+1 started only when pass k has ended. A slow stretch of
// the machine (a VM slowed for a few seconds, a neighbour's burst) then lands in one pass, and the
// passes' spread is the noise between processes at separate times that a verdict of `compare` has
// to beat; report/pass_merge.hpp merges them. Cost: N times the run (docs/compare.md).
//
// Each pass is a plain run (child role repeat-pass, isolate/child_protocol.hpp: no in-process
// repeats, no CSV, no tuning export)
// with its own results and journal, <base>.passK.json and <base>.passK.journal.jsonl, <base>
// being -o's file (else --journal's, else a temporary folder removed afterwards). With --resume a
// pass whose results are complete is reused, and the others are resumed from their journals. A
// pass that dies loses nothing it finished: its rows are read back from its journal.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "isolate/child_process.hpp"
#include "report/pass_merge.hpp"

namespace dnnbench {

struct RepeatPassRequest {
  std::vector<std::string> run_arguments;  // the run's arguments after `run`
  std::string base;                        // where pass files go (see above)
  int passes = 2;
  bool resume = false;
  // Told when a pass starts and ends, for the console.
  std::function<void(const std::string&)> note;
};

struct RepeatPassOutcome {
  int pass = 0;
  std::string results_path, journal_path;
  bool reused = false;                // --resume found it complete
  std::optional<ChildOutcome> child;  // unset when reused
  double elapsed_s = 0;
  bool complete = false;           // its results say so
  bool from_journal = false;       // its results file was missing: rows read from its journal
  std::optional<PassSuite> suite;  // nullopt: the pass produced nothing
  std::string problem;             // "" when it ended normally
};

std::string repeat_pass_results_path(const std::string& base, int pass);
std::string repeat_pass_journal_path(const std::string& base, int pass);

// Runs the passes, stopping early when a stop is asked for (sys/interrupt.hpp).
std::vector<RepeatPassOutcome> run_repeat_passes(const RepeatPassRequest& request);

// The rows a pass finished, read back from its journal (a pass that died).
SuiteResult suite_from_pass_journal(const std::string& journal_path);

}  // namespace dnnbench
