#include "report/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "report/noise_model.hpp"
#include "report/peaks.hpp"

namespace dnnbench {
namespace {

std::string engine_of(const RowResult& row) {
  return row.engine_id.value_or(row.engine_name.value_or("-"));
}

bool timed_pass(const RowResult& row) {
  const auto& s = primary_stats(row);
  return row.passed() && s && s->median > 0;
}

double median_of(const RowResult& row) {
  return primary_stats(row)->median;
}

std::string row_state(const RowResult& row) {
  if (row.validation_failed()) return "failed validation";
  if (row.status != RowStatus::success) return std::string(row_status_name(row.status));
  if (!primary_stats(row)) return "not timed";
  return "passed";
}

// Finds B's graph in A: by content hash when both recorded one, else by path.
class GraphIndex {
 public:
  explicit GraphIndex(const SuiteResult& suite) {
    for (const auto& g : suite.graphs) {
      if (g.content_hash) by_hash_.emplace(*g.content_hash, &g);
      by_path_.emplace(g.graph_path, &g);
    }
  }
  const GraphResult* find(const GraphResult& g) const {
    if (g.content_hash)
      if (const auto it = by_hash_.find(*g.content_hash); it != by_hash_.end()) return it->second;
    const auto it = by_path_.find(g.graph_path);
    return it == by_path_.end() ? nullptr : it->second;
  }

 private:
  std::map<std::string, const GraphResult*> by_hash_, by_path_;
};

// One side of a pair: a row chosen by the --by rule.
struct Choice {
  const RowResult* row = nullptr;
  std::string provider, engine;
};

const RowResult* fastest(const GraphResult& g, const std::string* provider) {
  const RowResult* best = nullptr;
  for (const auto& row : g.results)
    if ((!provider || row.provider == *provider) && timed_pass(row) &&
        (!best || median_of(row) < median_of(*best)))
      best = &row;
  return best;
}

const RowResult* top_pick(const GraphResult& g, const std::string& provider) {
  for (const auto& row : g.results)
    if (row.provider == provider && row.engine_id) return &row;
  return nullptr;
}

std::vector<std::string> providers_of(const GraphResult& g) {
  std::vector<std::string> names;
  for (const auto& row : g.results)
    if (std::find(names.begin(), names.end(), row.provider) == names.end()) names.push_back(row.provider);
  return names;
}

ComparedRow pair_rows(const GraphResult& ga, const GraphResult& gb, const RowResult* a, const RowResult* b,
                      const std::string& provider, const RunFile& ra, const RunFile& rb,
                      const CompareOptions& options) {
  ComparedRow out;
  out.graph = gb.graph_name;
  out.graph_key = graph_join_key(gb);
  out.provider = provider;
  if (a) {
    out.engine_a = engine_of(*a);
    out.plan_a = a->plan_name.value_or("");
    if (timed_pass(*a)) out.median_a_ms = median_of(*a);
  }
  if (b) {
    out.engine_b = engine_of(*b);
    out.plan_b = b->plan_name.value_or("");
    if (timed_pass(*b)) out.median_b_ms = median_of(*b);
  }
  if (!a || !b) {
    out.note = !a ? "no passing row in A" : "no passing row in B";
    out.broken = a && timed_pass(*a);
    return out;
  }
  out.basis = a->gpu_kernel_stats && b->gpu_kernel_stats ? "gpu_kernel" : "host";
  if (!timed_pass(*a) || !timed_pass(*b)) {
    out.note = fmt::format("A {}, B {}", row_state(*a), row_state(*b));
    out.broken = timed_pass(*a);
    return out;
  }
  if (a->gpu_kernel_stats.has_value() != b->gpu_kernel_stats.has_value()) {
    out.note = "one side has kernel times, the other host times only";
    return out;
  }
  (void)ga;
  out.ratio = time_ratio(*a, *b);
  if (!out.ratio) {
    out.note = "no positive median";
    return out;
  }
  const auto noise = noise_band_for(*a, *b, ra.suite.metadata, rb.suite.metadata, options.min_effect);
  out.band = noise.band;
  out.noise_source = noise.source;
  out.verdict = judge(*out.ratio, out.band);
  // Measured in two machine states (a VM's thread synchronization): not judged.
  // Or on differently free cores (a VM's host sharing or down-clocking them): not judged either.
  if (auto differs = host_sync_difference(*a, *b); !differs.empty()) {
    out.verdict = Verdict::undecided;
    out.noise_source = "host-sync";
    out.note = std::move(differs);
  } else if (auto cores = core_state_difference(*a, *b, *out.ratio, out.band); !cores.empty()) {
    out.verdict = Verdict::undecided;
    out.noise_source = "core-state";
    out.note = std::move(cores);
  }
  return out;
}

// Rank of `pick` among the passing, timed rows of `provider` (1 = fastest); nullopt when it did
// not pass.
std::optional<int> rank_of(const GraphResult& g, const std::string& provider, const RowResult* pick,
                           int& count) {
  std::vector<double> medians;
  for (const auto& row : g.results)
    if (row.provider == provider && timed_pass(row)) medians.push_back(median_of(row));
  count = static_cast<int>(medians.size());
  if (!pick || !timed_pass(*pick)) return std::nullopt;
  const double m = median_of(*pick);
  return 1 + static_cast<int>(std::count_if(medians.begin(), medians.end(), [m](double x) { return x < m; }));
}

PickChange pick_change(const GraphResult& ga, const GraphResult& gb, const std::string& provider,
                       const RunFile& ra, const RunFile& rb, const CompareOptions& options) {
  PickChange c;
  c.graph = gb.graph_name;
  c.provider = provider;
  const auto* pa = top_pick(ga, provider);
  const auto* pb = top_pick(gb, provider);
  c.pick_a = pa ? engine_of(*pa) : "-";
  c.pick_b = pb ? engine_of(*pb) : "-";
  c.pick_changed = c.pick_a != c.pick_b || (pa && pb && pa->plan_name != pb->plan_name);
  c.rank_a = rank_of(ga, provider, pa, c.engines_a);
  c.rank_b = rank_of(gb, provider, pb, c.engines_b);
  const auto* ba = fastest(ga, &provider);
  const auto* bb = fastest(gb, &provider);
  c.best_a = ba ? engine_of(*ba) : "-";
  c.best_b = bb ? engine_of(*bb) : "-";
  c.best_changed = c.best_a != c.best_b;
  if (pa && pb && timed_pass(*pa) && timed_pass(*pb)) {
    c.pick_ratio = time_ratio(*pa, *pb);
    if (c.pick_ratio)
      c.pick_verdict =
          judge(*c.pick_ratio,
                noise_band_for(*pa, *pb, ra.suite.metadata, rb.suite.metadata, options.min_effect).band);
  }
  return c;
}

}  // namespace

std::string_view compare_by_name(CompareBy by) {
  switch (by) {
    case CompareBy::engine:
      return "engine";
    case CompareBy::best:
      return "best";
    case CompareBy::heuristic:
      return "heuristic";
  }
  return "?";
}

std::optional<CompareBy> compare_by_from_name(std::string_view name) {
  for (auto by : {CompareBy::engine, CompareBy::best, CompareBy::heuristic})
    if (compare_by_name(by) == name) return by;
  return std::nullopt;
}

std::string graph_join_key(const GraphResult& graph) {
  return graph.content_hash.value_or(graph.graph_path);
}

bool Comparison::invalid() const {
  return std::any_of(differences.begin(), differences.end(), [](const auto& d) { return d.invalidating; });
}

bool Comparison::disturbed() const {
  return std::any_of(differences.begin(), differences.end(), [](const auto& d) { return d.machine; });
}

std::map<std::string, int> Comparison::noise_sources() const {
  std::map<std::string, int> counts;
  for (const auto& row : rows)
    if (row.verdict) ++counts[row.noise_source];
  return counts;
}

std::vector<const ComparedRow*> Comparison::regressions() const {
  std::vector<const ComparedRow*> out;
  for (const auto& row : rows)
    if (row.regression()) out.push_back(&row);
  return out;
}

Comparison compare_runs(const RunFile& ra, const RunFile& rb, const CompareOptions& options) {
  Comparison c;
  c.path_a = ra.path;
  c.path_b = rb.path;
  c.by = options.by;
  c.differences = condition_differences(ra.suite, rb.suite);
  c.version_changes = providers_with_other_versions(ra.suite, rb.suite);
  const GraphIndex index_a(ra.suite);
  std::vector<const GraphResult*> joined_a;
  for (const auto& gb : rb.suite.graphs) {
    if (gb.results.empty()) continue;  // not run (error, duplicate, filtered)
    const auto* ga = index_a.find(gb);
    if (!ga) {
      for (const auto& row : gb.results)
        c.only_in_b.push_back(fmt::format("{} {} {}", gb.graph_name, row.provider, engine_of(row)));
      continue;
    }
    joined_a.push_back(ga);
    switch (options.by) {
      case CompareBy::engine: {
        for (const auto& rowb : gb.results) {
          const RowResult* rowa = nullptr;
          for (const auto& r : ga->results)
            if (r.provider == rowb.provider && engine_of(r) == engine_of(rowb)) rowa = &r;
          if (!rowa) {
            c.only_in_b.push_back(fmt::format("{} {} {}", gb.graph_name, rowb.provider, engine_of(rowb)));
            continue;
          }
          c.rows.push_back(pair_rows(*ga, gb, rowa, &rowb, rowb.provider, ra, rb, options));
        }
        for (const auto& rowa : ga->results) {
          const bool in_b = std::any_of(gb.results.begin(), gb.results.end(), [&](const RowResult& r) {
            return r.provider == rowa.provider && engine_of(r) == engine_of(rowa);
          });
          if (!in_b)
            c.only_in_a.push_back(fmt::format("{} {} {}", gb.graph_name, rowa.provider, engine_of(rowa)));
        }
        break;
      }
      case CompareBy::best: {
        const auto* a = fastest(*ga, nullptr);
        const auto* b = fastest(gb, nullptr);
        const auto provider = b ? b->provider : a ? a->provider : std::string("-");
        auto row = pair_rows(*ga, gb, a, b, provider, ra, rb, options);
        if (a && b && a->provider != b->provider) row.provider = a->provider + "->" + b->provider;
        c.rows.push_back(std::move(row));
        break;
      }
      case CompareBy::heuristic:
        for (const auto& provider : providers_of(gb)) {
          const auto* a = top_pick(*ga, provider);
          if (!a) continue;
          c.rows.push_back(pair_rows(*ga, gb, a, top_pick(gb, provider), provider, ra, rb, options));
        }
        break;
    }
    if (!c.version_changes.empty())
      for (const auto& provider : providers_of(gb))
        if (std::find(c.version_changes.begin(), c.version_changes.end(), provider) !=
                c.version_changes.end() &&
            top_pick(*ga, provider))
          c.library_view.push_back(pick_change(*ga, gb, provider, ra, rb, options));
  }
  for (const auto& ga : ra.suite.graphs)
    if (!ga.results.empty() && std::find(joined_a.begin(), joined_a.end(), &ga) == joined_a.end())
      for (const auto& row : ga.results)
        c.only_in_a.push_back(fmt::format("{} {} {}", ga.graph_name, row.provider, engine_of(row)));
  // The whole comparison's own spread widens the rows' bands where it is larger
  // (report/noise_model.hpp, suite_spread_band).
  // Rows measured in two machine states (host-sync, core-state) are left out of it and stay
  // unjudged.
  const auto machine_state_differs = [](const ComparedRow& row) {
    return row.noise_source == "host-sync" || row.noise_source == "core-state";
  };
  std::vector<double> ratios;
  for (const auto& row : c.rows)
    if (row.verdict && !machine_state_differs(row)) ratios.push_back(row.ratio->ratio);
  c.suite_band = suite_spread_band(ratios);
  if (c.suite_band)
    for (auto& row : c.rows)
      if (row.verdict && !machine_state_differs(row) && *c.suite_band > row.band) {
        row.band = *c.suite_band;
        row.noise_source = "suite-spread";
        row.verdict = judge(*row.ratio, row.band);
      }
  double log_sum = 0;
  int n = 0;
  for (const auto& row : c.rows) {
    if (row.broken) ++c.broken;
    if (!row.verdict) continue;
    switch (*row.verdict) {
      case Verdict::faster:
        ++c.faster;
        break;
      case Verdict::slower:
        ++c.slower;
        break;
      case Verdict::same:
        ++c.same;
        break;
      case Verdict::undecided:
        ++c.undecided;
        break;
    }
    log_sum += std::log(row.ratio->ratio);
    ++n;
  }
  if (n > 0) c.geomean_ratio = std::exp(log_sum / n);
  c.workload_diff = workload_diff(workload_report(ra.suite), workload_report(rb.suite));
  return c;
}

}  // namespace dnnbench
