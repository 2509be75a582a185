#pragma once
// Comparing two runs (`dnnbench compare A.json B.json`, docs/compare.md): rows joined by graph
// content, provider and engine; a noise-aware verdict per pair (report/verdict.hpp); the
// conditions that differ between the runs; and, when library versions differ, what changed in
// the heuristic's picks. It reads results only.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/results.hpp"
#include "report/run_conditions.hpp"
#include "report/verdict.hpp"
#include "report/workload_report.hpp"

namespace dnnbench {

// engine: the same engine in both runs; best: each graph's fastest passing row (any provider,
// any engine); heuristic: each provider's top pick (its first engine in heuristic order).
enum class CompareBy { engine, best, heuristic };
std::string_view compare_by_name(CompareBy by);
std::optional<CompareBy> compare_by_from_name(std::string_view name);

struct RunFile {
  std::string path;
  SuiteResult suite;
};

struct CompareOptions {
  CompareBy by = CompareBy::engine;
  // The smallest change called FASTER or SLOWER, whatever the noise model says (it usually
  // says more: report/noise_model.hpp). 3%: above the ~1% A/A spread dnnbench aims for on the
  // GPU, below the 14-20% heuristic regressions users hunt (shared/reference/ANCHORS.md, issue 14).
  double min_effect = 0.03;
};

struct ComparedRow {
  std::string graph, graph_key, provider;
  std::string engine_a, engine_b, plan_a, plan_b;
  std::string basis;  // "gpu_kernel" or "host"
  std::optional<double> median_a_ms, median_b_ms;
  std::optional<TimeRatio> ratio;  // B / A
  double band = 0;                 // the noise band the verdict was judged against
  // The noise that set the band (report/noise_model.hpp): "repeat", "placements", "calibrated",
  // "iqr-floor", "min-effect" or "suite-spread"; empty without a verdict.
  std::string noise_source;
  std::optional<Verdict> verdict;  // nullopt: not comparable (note says why)
  // The row passed in A but not in B (error, skipped, failed validation): a regression too.
  bool broken = false;
  std::string note;
  bool regression() const { return broken || verdict == Verdict::slower; }
};

// The library-version view of one graph and provider: what the heuristic picked in each run, how
// that pick ranked among the engines measured, and whether the best plan moved.
struct PickChange {
  std::string graph, provider;
  std::string pick_a, pick_b;  // engine ids of the top pick
  bool pick_changed = false;
  std::optional<int> rank_a, rank_b;  // of the pick by median among passing rows (1 = fastest)
  int engines_a = 0, engines_b = 0;   // passing, timed rows
  std::string best_a, best_b;         // fastest passing engine
  bool best_changed = false;
  std::optional<TimeRatio> pick_ratio;  // the pick's time, B / A
  std::optional<Verdict> pick_verdict;
};

struct Comparison {
  std::string path_a, path_b;
  CompareBy by = CompareBy::engine;
  std::vector<ConditionDifference> differences;
  std::vector<ComparedRow> rows;
  std::vector<std::string> only_in_a, only_in_b;  // "graph provider engine" not joined
  std::optional<double> geomean_ratio;            // of B / A over rows with a ratio
  // The band the bulk of the rows' ratios sets (report/noise_model.hpp: suite_spread_band);
  // nullopt with too few rows.
  std::optional<double> suite_band;
  int faster = 0, slower = 0, same = 0, undecided = 0, broken = 0;
  std::vector<std::string> version_changes;  // providers whose library version differs
  std::vector<PickChange> library_view;      // filled when version_changes is not empty
  // The workload report of each run side by side (report/workload_report.hpp), when both runs
  // have layer models and oracle verdicts: how often each library's pick is beaten, per family
  // and model, in A's library version and in B's.
  std::vector<WorkloadGroupDiff> workload_diff;
  bool invalid() const;  // an invalidating condition differs
  // A condition of the machine (load, governor, oversubscription) differs or disturbed a run.
  bool disturbed() const;
  std::map<std::string, int> noise_sources() const;  // rows judged, per noise source
  std::vector<const ComparedRow*> regressions() const;
};

// The key that joins a graph across runs: its content hash when recorded, else its path.
std::string graph_join_key(const GraphResult& graph);

Comparison compare_runs(const RunFile& a, const RunFile& b, const CompareOptions& options);

}  // namespace dnnbench
