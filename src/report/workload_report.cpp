#include "report/workload_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "report/peaks.hpp"

namespace dnnbench {
namespace {

using nlohmann::json;

// Op kinds (graph/graph.hpp op_kind_name) by weight, heaviest first, with the family they report as.
constexpr std::pair<std::string_view, std::string_view> kFamilyOrder[] = {
    {"sdpa_bwd", "sdpa_bwd"},
    {"sdpa_fwd", "sdpa_fwd"},
    {"conv_bwd_weights", "conv_bwd_weights"},
    {"conv_bwd_data", "conv_bwd_data"},
    {"conv_fwd", "conv_fwd"},
    {"matmul", "matmul"},
    {"batchnorm_backward", "norm"},
    {"batchnorm_training", "norm"},
    {"batchnorm_inference", "norm"},
    {"layernorm", "norm"},
    {"rmsnorm", "norm"},
    {"resample", "resample"},
    {"reduction", "reduction"},
    {"pointwise", "pointwise"},
};

// Where a family sorts among the groups: the order above.
std::size_t family_rank(const std::string& family) {
  for (std::size_t k = 0; k < std::size(kFamilyOrder); ++k)
    if (kFamilyOrder[k].second == family) return k;
  return std::size(kFamilyOrder);
}

std::optional<double> row_ms(const RowResult& row) {
  if (row.status != RowStatus::success) return std::nullopt;
  const auto& stats = primary_stats(row);
  if (!stats || stats->n == 0 || !(stats->median > 0)) return std::nullopt;
  return stats->median;
}

WorkloadGraph::Verdict verdict_of(const PairedDelta& d) {
  WorkloadGraph::Verdict v;
  v.beaten = d.significant && d.speedup > 1;
  v.gap = v.beaten ? d.speedup : 1;
  v.pick_ms = d.baseline_median_ms;
  v.best_ms = v.beaten ? d.oracle_median_ms : d.baseline_median_ms;
  return v;
}

WorkloadGraph::Verdict not_beaten(double pick_ms) {
  WorkloadGraph::Verdict v;
  v.pick_ms = v.best_ms = pick_ms;
  return v;
}

// The oracle's verdict on a provider's pick: the graph regret (the pick against the fastest plan
// measured on any of the provider's engines); without one, the pick row's own oracle.
std::optional<WorkloadGraph::Verdict> verdict_for(const GraphResult& g, const std::string& provider,
                                                  const RowResult* pick, std::optional<double> pick_ms) {
  for (const auto& r : g.regret) {
    if (r.provider != provider) continue;
    if (r.delta) return verdict_of(*r.delta);
    // No comparison because the pick is the best plan measured; any other note is an error.
    if (r.pick_engine == r.best_engine && r.pick_plan == r.best_plan && pick_ms) return not_beaten(*pick_ms);
    return std::nullopt;
  }
  if (!pick || !pick->oracle) return std::nullopt;
  if (pick->oracle_delta && !pick->oracle->delta_withheld) return verdict_of(*pick->oracle_delta);
  if (pick_ms && (pick->oracle->verdict == "heuristic-best" || pick->oracle->search == "no-search"))
    return not_beaten(*pick_ms);
  return std::nullopt;
}

struct Accumulator {
  WorkloadGroup group;
  double log_beaten = 0, log_all = 0;

  void add(const WorkloadGraph& w, std::int64_t count) {
    auto& g = group;
    const auto n = static_cast<double>(count);
    if (w.pick_ms) {
      ++g.graphs;
      g.layers += count;
      g.pick_total_ms += n * *w.pick_ms;
      g.best_total_ms += n * w.best_ms.value_or(*w.pick_ms);
    } else {
      ++g.graphs_untimed;
      g.layers_untimed += count;
    }
    if (!w.verdict) return;
    const auto& v = *w.verdict;
    ++g.graphs_judged;
    g.layers_judged += count;
    g.judged_pick_ms += n * v.pick_ms;
    g.saved_ms += n * (v.pick_ms - v.best_ms);
    log_all += std::log(v.gap);
    if (!v.beaten) return;
    ++g.graphs_beaten;
    g.layers_beaten += count;
    log_beaten += std::log(v.gap);
    if (!g.worst_gap || v.gap > *g.worst_gap) {
      g.worst_gap = v.gap;
      g.worst_graph = graph_label(w.graph_name, w.graph_path);
    }
  }

  WorkloadGroup finish() {
    if (group.graphs_beaten > 0)
      group.geomean_gap = std::exp(log_beaten / static_cast<double>(group.graphs_beaten));
    if (group.graphs_judged > 0)
      group.geomean_gap_all = std::exp(log_all / static_cast<double>(group.graphs_judged));
    return group;
  }
};

std::string version_of(const SuiteResult& suite, const std::string& provider) {
  const auto& m = suite.metadata;
  if (!m.is_object() || !m.contains("providers") || !m["providers"].is_object()) return "";
  const auto it = m["providers"].find(provider);
  if (it == m["providers"].end() || !it->is_object()) return "";
  const auto v = it->find("version");
  return v != it->end() && v->is_string() ? v->get<std::string>() : "";
}

json opt_number(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? json(*v) : json(nullptr);
}

json group_to_json(const WorkloadGroup& g, bool oracle) {
  json out = {{"kind", g.kind},
              {"name", g.name},
              {"graphs", g.graphs},
              {"layers", g.layers},
              {"graphs_untimed", g.graphs_untimed},
              {"layers_untimed", g.layers_untimed},
              {"pick_total_ms", g.pick_total_ms},
              {"best_total_ms", g.best_total_ms},
              {"oracle", nullptr}};
  if (oracle)
    out["oracle"] = {{"graphs_judged", g.graphs_judged},
                     {"graphs_beaten", g.graphs_beaten},
                     {"share_beaten", g.share_beaten()},
                     {"layers_judged", g.layers_judged},
                     {"layers_beaten", g.layers_beaten},
                     {"geomean_gap", opt_number(g.geomean_gap)},
                     {"geomean_gap_all", opt_number(g.geomean_gap_all)},
                     {"worst_gap", opt_number(g.worst_gap)},
                     {"worst_graph", g.worst_graph.empty() ? json(nullptr) : json(g.worst_graph)},
                     {"pick_time_ms", g.judged_pick_ms},
                     {"saved_time_ms", g.saved_ms},
                     {"time_saved_share", g.time_saved_share()}};
  return out;
}

std::string gap_text(const std::optional<double>& gap) {
  return gap ? fmt::format("{:.3f}x", *gap) : "-";
}

std::string group_label(const WorkloadGroup& g) {
  return g.kind == "model" ? "model " + g.name : g.name;
}

std::string provider_title(const std::string& provider, const std::string& version) {
  return version.empty() ? provider : provider + " " + version;
}

}  // namespace

std::string workload_family(const std::vector<std::string>& ops) {
  for (const auto& [kind, family] : kFamilyOrder)
    if (std::find(ops.begin(), ops.end(), kind) != ops.end()) return std::string(family);
  return "other";
}

double WorkloadGroup::share_beaten() const {
  return graphs_judged > 0 ? static_cast<double>(graphs_beaten) / static_cast<double>(graphs_judged) : 0;
}

double WorkloadGroup::time_saved_share() const {
  return judged_pick_ms > 0 ? saved_ms / judged_pick_ms : 0;
}

std::vector<std::pair<std::string, WorkloadGraph>> workload_graphs(const SuiteResult& suite) {
  std::vector<std::pair<std::string, WorkloadGraph>> out;
  if (suite.layer_models.empty()) return out;
  // A graph not run because the same content ran under another path: its layers are that one's.
  LayerModels models = suite.layer_models;
  for (const auto& g : suite.graphs) {
    if (!g.duplicate_of) continue;
    const auto it = models.find(g.graph_path);
    if (it == models.end()) continue;
    for (const auto& [model, count] : it->second) models[*g.duplicate_of][model] += count;
    models.erase(g.graph_path);
  }
  for (const auto& g : suite.graphs) {
    if (g.duplicate_of || g.filtered) continue;
    const auto it = models.find(g.graph_path);
    if (it == models.end()) continue;
    WorkloadGraph base;
    base.graph_path = g.graph_path;
    base.graph_name = g.graph_name;
    base.family = workload_family(g.ops);
    base.models = it->second;
    for (const auto& [model, count] : base.models) base.count += count;
    std::vector<std::string> providers;
    for (const auto& row : g.results)
      if (std::find(providers.begin(), providers.end(), row.provider) == providers.end())
        providers.push_back(row.provider);
    for (const auto& provider : providers) {
      WorkloadGraph w = base;
      const RowResult* pick = nullptr;
      for (const auto& row : g.results) {
        if (row.provider != provider) continue;
        const auto ms = row_ms(row);
        if (!ms) continue;
        // Rows come in the provider's heuristic order: the first timed one is the library's pick.
        if (!pick) {
          pick = &row;
          w.pick_ms = w.best_ms = ms;
        }
        double best = *ms;
        if (row.best_plan && row.best_plan->median_ms > 0) best = std::min(best, row.best_plan->median_ms);
        w.best_ms = std::min(*w.best_ms, best);
      }
      w.verdict = verdict_for(g, provider, pick, w.pick_ms);
      out.emplace_back(provider, std::move(w));
    }
  }
  return out;
}

std::vector<WorkloadGroup> workload_groups(const std::vector<WorkloadGraph>& graphs) {
  Accumulator all;
  all.group.kind = all.group.name = "all";
  std::map<std::pair<std::size_t, std::string>, Accumulator> families;
  std::map<std::string, Accumulator> models;
  for (const auto& w : graphs) {
    all.add(w, w.count);
    auto& family = families[{family_rank(w.family), w.family}];
    family.group.kind = "family";
    family.group.name = w.family;
    family.add(w, w.count);
    for (const auto& [name, count] : w.models) {
      auto& model = models[name];
      model.group.kind = "model";
      model.group.name = name;
      model.add(w, count);
    }
  }
  std::vector<WorkloadGroup> out{all.finish()};
  for (auto& [key, family] : families) out.push_back(family.finish());
  for (auto& [name, model] : models) out.push_back(model.finish());
  return out;
}

WorkloadReport workload_report(const SuiteResult& suite) {
  WorkloadReport report;
  std::vector<std::string> order;
  std::map<std::string, std::vector<WorkloadGraph>> by_provider;
  for (auto& [provider, graph] : workload_graphs(suite)) {
    if (!by_provider.count(provider)) order.push_back(provider);
    by_provider[provider].push_back(std::move(graph));
  }
  for (const auto& provider : order) {
    const auto& graphs = by_provider[provider];
    ProviderWorkloadReport p;
    p.provider = provider;
    p.version = version_of(suite, provider);
    p.oracle = std::any_of(graphs.begin(), graphs.end(), [](const WorkloadGraph& w) { return w.verdict; });
    p.groups = workload_groups(graphs);
    report.providers.push_back(std::move(p));
  }
  return report;
}

std::string workload_inputs_line(const SuiteResult& suite) {
  if (suite.layer_models.empty()) return "";
  std::set<std::string> models, graphs;
  std::int64_t layers = 0;
  for (const auto& [path, counts] : suite.layer_models) {
    for (const auto& [model, count] : counts) {
      models.insert(model);
      layers += count;
    }
  }
  for (const auto& g : suite.graphs)
    if (!g.duplicate_of && suite.layer_models.count(g.graph_path)) graphs.insert(g.graph_path);
  return fmt::format("Workloads: {} distinct graphs ({} layers) from {} model{}", graphs.size(), layers,
                     models.size(), models.size() == 1 ? "" : "s");
}

void print_workload_report(std::ostream& out, const WorkloadReport& report, std::size_t max_models) {
  for (const auto& p : report.providers) {
    const auto& all = p.groups.front();
    const auto model_count = static_cast<std::size_t>(std::count_if(
        p.groups.begin(), p.groups.end(), [](const WorkloadGroup& g) { return g.kind == "model"; }));
    fmt::print(out, "\nWorkload report, {}: {} graphs ({} layers) of {} model{}, {} without a time\n",
               provider_title(p.provider, p.version), all.graphs + all.graphs_untimed,
               all.layers + all.layers_untimed, model_count, model_count == 1 ? "" : "s", all.graphs_untimed);
    if (p.oracle) {
      fmt::print(
          out,
          "  the library's pick against the best plan measured (graph regret, paired; docs/oracle.md);\n"
          "  time saved = Σ count × (pick − best) / Σ count × pick over the graphs judged\n");
      fmt::print(out, "  {:<34} {:>6} {:>7} {:>6} {:>7} {:>8} {:>8} {:>6} {:>12}\n", "group", "judged",
                 "layers", "beaten", "share", "geomean", "worst", "saved", "model ms");
    } else {
      fmt::print(
          out,
          "  model time = Σ count × median; best = the fastest engine's heuristic plan (run --oracle for "
          "the heuristic's gap)\n");
      fmt::print(out, "  {:<34} {:>6} {:>7} {:>8} {:>12} {:>12} {:>9}\n", "group", "graphs", "layers",
                 "untimed", "pick ms", "best ms", "pick/best");
    }
    std::size_t models_shown = 0;
    for (const auto& g : p.groups) {
      if (g.kind == "model" && models_shown++ >= max_models) {
        fmt::print(out, "  ... {} more models (the JSON has them all)\n", model_count - max_models);
        break;
      }
      std::string label = group_label(g);
      if (label.size() > 34) label = label.substr(0, 33) + "~";
      if (p.oracle)
        fmt::print(out, "  {:<34} {:>6} {:>7} {:>6} {:>6.1f}% {:>8} {:>8} {:>5.1f}% {:>12.4f}\n", label,
                   g.graphs_judged, g.layers_judged, g.graphs_beaten, 100 * g.share_beaten(),
                   gap_text(g.geomean_gap), gap_text(g.worst_gap), 100 * g.time_saved_share(),
                   g.judged_pick_ms);
      else
        fmt::print(out, "  {:<34} {:>6} {:>7} {:>8} {:>12.4f} {:>12.4f} {:>8.3f}x\n", label, g.graphs,
                   g.layers, g.graphs_untimed, g.pick_total_ms, g.best_total_ms,
                   g.best_total_ms > 0 ? g.pick_total_ms / g.best_total_ms : 1.0);
    }
    if (p.oracle && all.worst_gap)
      fmt::print(out, "  worst gap {:.3f}x: {}\n", *all.worst_gap, all.worst_graph);
  }
}

json workload_report_to_json(const WorkloadReport& report) {
  json out = json::array();
  for (const auto& p : report.providers) {
    json groups = json::array();
    for (const auto& g : p.groups) groups.push_back(group_to_json(g, p.oracle));
    out.push_back({{"provider", p.provider},
                   {"version", p.version.empty() ? json(nullptr) : json(p.version)},
                   {"oracle", p.oracle},
                   {"groups", std::move(groups)}});
  }
  return out;
}

std::vector<WorkloadGroupDiff> workload_diff(const WorkloadReport& a, const WorkloadReport& b) {
  std::vector<WorkloadGroupDiff> out;
  for (const auto& pa : a.providers) {
    if (!pa.oracle) continue;
    const auto pb =
        std::find_if(b.providers.begin(), b.providers.end(),
                     [&](const ProviderWorkloadReport& p) { return p.provider == pa.provider && p.oracle; });
    if (pb == b.providers.end()) continue;
    for (const auto& ga : pa.groups)
      for (const auto& gb : pb->groups)
        if (ga.kind == gb.kind && ga.name == gb.name)
          out.push_back({pa.provider, ga.kind, ga.name, pa.version, pb->version, ga, gb});
  }
  return out;
}

void print_workload_diff(std::ostream& out, const std::vector<WorkloadGroupDiff>& diff,
                         std::size_t max_models) {
  std::string provider;
  std::size_t models_shown = 0;
  for (const auto& d : diff) {
    if (d.provider != provider) {
      provider = d.provider;
      models_shown = 0;
      fmt::print(
          out,
          "\nWorkload report, A {} vs B {}: the heuristic's pick significantly beaten (share of graphs "
          "judged), its geometric-mean gap, and the model time the best plans save\n",
          provider_title(d.provider, d.version_a), provider_title(d.provider, d.version_b));
      fmt::print(out, "  {:<34} {:>13} {:>17} {:>19} {:>15}\n", "group", "judged A/B", "share beaten A→B",
                 "geomean gap A→B", "saved A→B");
    }
    if (d.kind == "model" && models_shown++ >= max_models) continue;
    std::string label = group_label(d.a);
    if (label.size() > 34) label = label.substr(0, 33) + "~";
    fmt::print(out, "  {:<34} {:>13} {:>17} {:>19} {:>15}\n", label,
               fmt::format("{}/{}", d.a.graphs_judged, d.b.graphs_judged),
               fmt::format("{:.1f}%→{:.1f}%", 100 * d.a.share_beaten(), 100 * d.b.share_beaten()),
               fmt::format("{}→{}", gap_text(d.a.geomean_gap), gap_text(d.b.geomean_gap)),
               fmt::format("{:.1f}%→{:.1f}%", 100 * d.a.time_saved_share(), 100 * d.b.time_saved_share()));
  }
}

json workload_diff_to_json(const std::vector<WorkloadGroupDiff>& diff) {
  json out = json::array();
  for (const auto& d : diff)
    out.push_back({{"provider", d.provider},
                   {"kind", d.kind},
                   {"name", d.name},
                   {"version_a", d.version_a.empty() ? json(nullptr) : json(d.version_a)},
                   {"version_b", d.version_b.empty() ? json(nullptr) : json(d.version_b)},
                   {"a", group_to_json(d.a, true)},
                   {"b", group_to_json(d.b, true)}});
  return out;
}

}  // namespace dnnbench
