#include "report/pass_merge.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "report/peaks.hpp"

namespace dnnbench {
namespace {

bool timed(const RowResult& row) {
  const auto& stats = primary_stats(row);
  return row.status == RowStatus::success && !row.validation_failed() && stats && stats->median > 0;
}

bool failed(const RowResult& row) {
  return row.status == RowStatus::error || row.status == RowStatus::timeout || row.validation_failed();
}

double spread_of_medians(const std::vector<double>& medians) {
  const auto [lo, hi] = std::minmax_element(medians.begin(), medians.end());
  return *lo > 0 ? *hi / *lo - 1 : 0;
}

}  // namespace

RowResult merge_pass_rows(const std::vector<PassRow>& rows) {
  std::vector<const PassRow*> timed_rows;
  for (const auto& r : rows)
    if (timed(*r.row)) timed_rows.push_back(&r);
  const PassRow* chosen = &rows.front();
  if (const auto failure =
          std::find_if(rows.begin(), rows.end(), [](const PassRow& r) { return failed(*r.row); });
      failure != rows.end()) {
    chosen = &*failure;
  } else if (!timed_rows.empty()) {
    auto by_median = timed_rows;
    std::sort(by_median.begin(), by_median.end(), [](const PassRow* a, const PassRow* b) {
      return primary_stats(*a->row)->median < primary_stats(*b->row)->median;
    });
    // The lower middle for an even count: of two passes, the faster, which a disturbance (that
    // only ever slows a CPU row) is less likely to have touched.
    chosen = by_median[(by_median.size() - 1) / 2];
  }
  RowResult out = *chosen->row;
  out.repeat.reset();
  if (timed_rows.size() >= 2) {
    RepeatResult repeat;
    repeat.method = kRepeatMethodPasses;
    for (const auto* r : timed_rows) {
      repeat.medians_ms.push_back(primary_stats(*r->row)->median);
      repeat.passes.push_back(r->pass);
      repeat.pids.push_back(r->pid);
    }
    repeat.spread = spread_of_medians(repeat.medians_ms);
    repeat.chosen_pass = chosen->pass;
    out.repeat = std::move(repeat);
  }
  return out;
}

SuiteResult merge_pass_suites(const std::vector<PassSuite>& passes) {
  SuiteResult out;
  std::vector<std::string> graph_order;
  std::map<std::string, GraphResult> graphs;  // by graph_path: the first pass's entry
  // Per graph: its row keys in order of first appearance, and each key's rows by pass.
  std::map<std::string, std::vector<std::string>> row_order;
  std::map<std::string, std::map<std::string, std::vector<PassRow>>> rows;
  for (const auto& pass : passes)
    for (const auto& graph : pass.suite.graphs) {
      if (graphs.emplace(graph.graph_path, graph).second) graph_order.push_back(graph.graph_path);
      auto& order = row_order[graph.graph_path];
      auto& by_key = rows[graph.graph_path];
      for (const auto& row : graph.results) {
        const auto key = row_key(row);
        auto& list = by_key[key];
        if (list.empty()) order.push_back(key);
        list.push_back({pass.pass, pass.pid, &row});
      }
    }
  for (const auto& path : graph_order) {
    auto graph = graphs.at(path);
    graph.results.clear();
    for (const auto& key : row_order[path]) graph.results.push_back(merge_pass_rows(rows[path][key]));
    out.graphs.push_back(std::move(graph));
  }
  return out;
}

}  // namespace dnnbench
