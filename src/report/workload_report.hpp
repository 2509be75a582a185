#pragma once
// The workload report (docs/results.md, "The workload report"): for a run over imported models
// (a collection such as graphs/workloads, whose manifest says which model each layer comes from
// and how often it occurs there), per provider, grouped by op family and by model:
//  - always: the graphs, the layers they stand for, and the time of the layers as the models run
//    them, Σ count × time, under the library's pick and under the best engine measured;
//  - with --oracle: how often the heuristic's pick is significantly beaten (the graph regret:
//    the pick against the fastest plan measured on any engine, paired, with its control and
//    replication, docs/oracle.md), the geometric mean and the worst gap, and the model time the
//    best plans would save, weighted by how often each layer occurs.
// It reads results only; the console, JSON, HTML and compare sinks print what it computes.
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/results.hpp"

namespace dnnbench {

// The op family a graph is reported under, from its nodes' op kinds (GraphResult::ops): the
// heaviest op decides (attention, then convolution, matmul, normalization, pooling, reduction,
// pointwise), so a convolution with a fused bias and ReLU is `conv_fwd`. Names: `sdpa_bwd`,
// `sdpa_fwd`, `conv_bwd_weights`, `conv_bwd_data`, `conv_fwd`, `matmul`, `norm`, `resample`,
// `reduction`, `pointwise`, and `other` when no op is known.
std::string workload_family(const std::vector<std::string>& ops);

// One graph under one provider, as the report counts it.
struct WorkloadGraph {
  std::string graph_path, graph_name, family;
  std::map<std::string, std::int64_t> models;  // model -> occurrences in it
  std::int64_t count = 0;                      // Σ over models
  std::optional<double> pick_ms, best_ms;      // per execution; none: no timed row
  // The oracle's verdict on the library's pick (none: no verdict, e.g. no --oracle or an error).
  struct Verdict {
    bool beaten = false;  // significantly slower than the best plan measured (replicated)
    double gap = 1;       // pick time / best time when beaten, else 1
    double pick_ms = 0;   // the pick's time in the paired comparison (or its own median)
    double best_ms = 0;   // the best plan's time when beaten, else pick_ms
  };
  std::optional<Verdict> verdict;
};

// Figures of one group of graphs (all, one family, one model) under one provider.
struct WorkloadGroup {
  std::string kind;                                     // "all", "family" or "model"
  std::string name;                                     // "all", the family, or the model
  std::int64_t graphs = 0, layers = 0;                  // with a timed pick; layers: Σ count
  std::int64_t graphs_untimed = 0, layers_untimed = 0;  // no timed row (skipped, failed)
  double pick_total_ms = 0, best_total_ms = 0;          // Σ count × time over the timed graphs
  // --oracle: graphs (and layers, Σ count) with a verdict, and those where the pick is beaten.
  std::int64_t graphs_judged = 0, graphs_beaten = 0, layers_judged = 0, layers_beaten = 0;
  std::optional<double> geomean_gap;      // over the beaten graphs
  std::optional<double> geomean_gap_all;  // over the judged graphs, 1 where not beaten
  std::optional<double> worst_gap;
  std::string worst_graph;  // as graph_label names it: the path, led by the name where it lacks it
  // Σ count × pick time and Σ count × (pick − best) over the judged graphs, from the verdicts.
  double judged_pick_ms = 0, saved_ms = 0;

  double share_beaten() const;      // graphs_beaten / graphs_judged (0 when none judged)
  double time_saved_share() const;  // saved_ms / judged_pick_ms (0 when none judged)
};

struct ProviderWorkloadReport {
  std::string provider, version;      // version: from the run's metadata, "" when unknown
  bool oracle = false;                // some graph has a verdict
  std::vector<WorkloadGroup> groups;  // "all" first, then families, then models (each by name)
};

struct WorkloadReport {
  std::vector<ProviderWorkloadReport> providers;
  bool empty() const { return providers.empty(); }
};

// Per graph and provider, what the report counts (exposed for tests). Graphs run as duplicates
// of another add their models to it; graphs not in `suite.layer_models` are left out.
std::vector<std::pair<std::string, WorkloadGraph>> workload_graphs(const SuiteResult& suite);
// Groups the graphs of one provider.
std::vector<WorkloadGroup> workload_groups(const std::vector<WorkloadGraph>& graphs);
// The report of a run; empty when the run has no layer models.
WorkloadReport workload_report(const SuiteResult& suite);

void print_workload_report(std::ostream& out, const WorkloadReport& report, std::size_t max_models = 40);
// "Workloads: 1234 distinct graphs (5678 layers) from 12 models": what a run's inputs hold (also
// in a dry run); "" without layer models.
std::string workload_inputs_line(const SuiteResult& suite);
nlohmann::json workload_report_to_json(const WorkloadReport& report);

// The report of two runs side by side (`compare`, docs/compare.md): groups joined by provider,
// kind and name, when both runs have oracle verdicts.
struct WorkloadGroupDiff {
  std::string provider, kind, name;
  std::string version_a, version_b;
  WorkloadGroup a, b;
};
std::vector<WorkloadGroupDiff> workload_diff(const WorkloadReport& a, const WorkloadReport& b);
void print_workload_diff(std::ostream& out, const std::vector<WorkloadGroupDiff>& diff,
                         std::size_t max_models = 40);
nlohmann::json workload_diff_to_json(const std::vector<WorkloadGroupDiff>& diff);

}  // namespace dnnbench
