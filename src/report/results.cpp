#include "report/results.hpp"

#include <algorithm>

namespace dnnbench {

std::string_view row_status_name(RowStatus status) {
  switch (status) {
    case RowStatus::success:
      return "success";
    case RowStatus::error:
      return "error";
    case RowStatus::skipped:
      return "skipped";
    case RowStatus::timeout:
      return "timeout";
  }
  return "?";
}

std::optional<RowStatus> row_status_from_name(std::string_view name) {
  for (auto status : {RowStatus::success, RowStatus::error, RowStatus::skipped, RowStatus::timeout})
    if (row_status_name(status) == name) return status;
  return std::nullopt;
}

std::string row_key(const RowResult& row) {
  return row.provider + '\n' + row.engine_id.value_or("") + '\n' + row.engine_label.value_or("");
}

std::string graph_label(const std::string& name, const std::string& path) {
  if (name.empty() || path.find(name) != std::string::npos) return path;
  return name + "  " + path;
}

std::string_view graph_status_name(const GraphResult& graph) {
  if (!graph.ok) return "error";
  if (graph.interrupted) return "interrupted";
  if (graph.duplicate_of) return "duplicate";
  if (graph.filtered) return "filtered";
  return "ok";
}

Summary SuiteResult::summary() const {
  Summary s;
  auto provider_counts = [&s](const std::string& name) -> ProviderSummary& {
    for (auto& [provider, counts] : s.providers)
      if (provider == name) return counts;
    return s.providers.emplace_back(name, ProviderSummary{}).second;
  };
  for (const auto& g : graphs) {
    ++s.graphs;
    if (!g.ok) ++s.graph_errors;
    if (g.ok && g.duplicate_of) ++s.duplicates;
    if (g.ok && g.filtered) ++s.filtered;
    for (const auto& row : g.results) {
      ++s.rows;
      auto& p = provider_counts(row.provider);
      ++p.rows;
      if (row.status == RowStatus::skipped) {
        ++s.skipped;
        ++p.skipped;
      } else if (row.status == RowStatus::error || row.status == RowStatus::timeout) {
        ++s.errors;
        ++p.errors;
      } else if (row.passed()) {
        ++s.passed;
        ++p.passed;
      } else {
        ++s.failed;
        ++p.failed;
      }
    }
  }
  return s;
}

int exit_code_for(const SuiteResult& suite) {
  if (suite.stop_signal != 0) return 128 + suite.stop_signal;
  const auto s = suite.summary();
  if (s.failed > 0) return 3;
  if (s.errors > 0 || s.graph_errors > 0) return 1;
  return 0;
}

}  // namespace dnnbench

namespace dnnbench {

bool cache_sensitive(const TimingInfo::CacheFit& fit, std::string_view cache_mode) {
  // Below a quarter the whole working set stays cached wherever the row runs (and a network's
  // neighbouring layers leave much of it too); above twice the cache it streams through either
  // way. Between, the hot figure depends on what the cache still holds.
  // A rotation that reached twice the cache is past the range by construction; one capped at
  // kMaxRotationCopies over a small working set can still fall inside it.
  // A producer row's kept inputs are meant to be cached; its rotated part is judged as rotating's.
  const bool rotated = cache_mode == "rotating" || cache_mode == "producer";
  if (cache_mode != "hot" && !rotated) return false;
  const auto kept = rotated ? fit.kept_bytes : 0;
  const auto seen =
      (fit.working_set_bytes - kept) * std::max<std::int64_t>(1, rotated ? fit.rotation_copies : 1) + kept;
  return fit.cache_bytes > 0 && 4 * seen >= fit.cache_bytes && seen <= 2 * fit.cache_bytes;
}

}  // namespace dnnbench
