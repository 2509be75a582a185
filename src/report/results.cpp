#include "report/results.hpp"

namespace dnnbench {

std::string_view row_status_name(RowStatus status) {
  switch (status) {
    case RowStatus::success:
      return "success";
    case RowStatus::error:
      return "error";
    case RowStatus::skipped:
      return "skipped";
  }
  return "?";
}

Summary SuiteResult::summary() const {
  Summary s;
  for (const auto& g : graphs) {
    ++s.graphs;
    if (!g.ok) ++s.graph_errors;
    for (const auto& row : g.results) {
      ++s.rows;
      if (row.status == RowStatus::skipped)
        ++s.skipped;
      else if (row.status == RowStatus::error)
        ++s.errors;
      else if (row.passed())
        ++s.passed;
      else
        ++s.failed;
    }
  }
  return s;
}

int exit_code_for(const SuiteResult& suite) {
  const auto s = suite.summary();
  if (s.failed > 0) return 3;
  if (s.errors > 0 || s.graph_errors > 0) return 1;
  return 0;
}

}  // namespace dnnbench
