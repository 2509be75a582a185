#pragma once
// A self-contained HTML report of one or more runs (`report --html`, `compare --html`): the
// results embedded as JSON, drawn by inline script as SVG; no network fetch, no external files.
// Per graph: engines as bars with CI whiskers (the library's pick marked), oracle gaps with their
// CIs, sample distributions when samples were saved. Overview: roofline against the device's
// peaks, the heuristic's rank against the best, failures. Sortable, filterable tables. With a
// comparison, a compare page.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/compare.hpp"

namespace dnnbench {

// Samples kept per row in the page: this many evenly spaced order statistics, so a 700-row run
// with saved samples stays a few MB while each distribution keeps its shape.
inline constexpr std::size_t kHtmlSamplesPerRow = 64;

// The data the page draws (also for tests): {runs: [{path, title, meta, summary, graphs, rows}],
// compare: comparison JSON | null}.
nlohmann::json html_report_data(const std::vector<RunFile>& runs, const Comparison* comparison);
std::string html_report(const std::vector<RunFile>& runs, const Comparison* comparison);

}  // namespace dnnbench
