#include "report/html_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/compare_report.hpp"
#include "report/html_page.hpp"
#include "report/peaks.hpp"
#include "report/workload_report.hpp"

namespace dnnbench {
namespace {

using nlohmann::json;

json num(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? json(*v) : json(nullptr);
}

json downsampled(const std::vector<double>& samples) {
  if (samples.empty()) return nullptr;
  auto sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  if (sorted.size() <= kHtmlSamplesPerRow) return sorted;
  json out = json::array();
  for (std::size_t i = 0; i < kHtmlSamplesPerRow; ++i)
    out.push_back(sorted[i * (sorted.size() - 1) / (kHtmlSamplesPerRow - 1)]);
  return out;
}

std::string html_message(const RowResult& row) {
  if (row.error_message) return *row.error_message;
  if (row.skip_reason) return *row.skip_reason;
  if (row.validation_failed() && row.correctness)
    for (const auto& o : row.correctness->outputs)
      if (!o.passed) return "failed validation: " + o.tensor + " " + o.first_mismatch;
  if (row.oracle_error) return "oracle: " + *row.oracle_error;
  return "";
}

json row_data(const GraphResult& g, std::size_t graph_index, const RowResult& row, bool pick) {
  const auto& s = primary_stats(row);
  const bool timed = s && s->n > 0;
  const auto share = peak_share(g, row);
  json r = {{"g", graph_index},
            {"p", row.provider},
            {"e", row.engine_id.value_or("-")},
            {"en", row.engine_name.value_or("")},
            {"plan", row.plan_name.value_or("")},
            {"st", row.validation_failed() ? "failed" : std::string(row_status_name(row.status))},
            {"pick", pick},
            {"basis", row.gpu_kernel_stats ? "kernel" : "host"},
            {"med", timed ? json(s->median) : json(nullptr)},
            {"lo", timed ? num(s->median_ci_lo) : json(nullptr)},
            {"hi", timed ? num(s->median_ci_hi) : json(nullptr)},
            {"p5", timed ? num(s->p5) : json(nullptr)},
            {"p95", timed ? num(s->p95) : json(nullptr)},
            {"n", timed ? json(s->n) : json(nullptr)},
            {"flops", num(achieved_flops(row))},
            {"bps", num(achieved_bytes_per_s(row))},
            {"pf", num(share.flops)},
            {"pfb", share.flops_basis},
            {"pb", num(share.bandwidth)},
            {"err", row.correctness ? num(row.correctness->max_rel_diff) : json(nullptr)},
            {"msg", html_message(row)},
            {"method", row.timing ? row.timing->method : ""},
            {"samples", row.timing ? downsampled(row.timing->samples_ms) : json(nullptr)}};
  if (row.peak)
    r["peak"] = {{"mf", num(row.peak->matrix_flops)},
                 {"vf", num(row.peak->vector_flops)},
                 {"bw", num(row.peak->dram_bytes_per_s)},
                 {"dev", row.peak->device},
                 {"src", row.peak->source}};
  if (const auto& d = row.oracle_delta)
    r["od"] = {{"s", num(d->speedup)},
               {"lo", num(d->ci_lo)},
               {"hi", num(d->ci_hi)},
               {"sig", d->significant},
               {"plan", row.oracle ? row.oracle->plan_name : ""}};
  return r;
}

json run_data(const RunFile& run) {
  json graphs = json::array(), rows = json::array();
  for (std::size_t gi = 0; gi < run.suite.graphs.size(); ++gi) {
    const auto& g = run.suite.graphs[gi];
    graphs.push_back({{"name", g.graph_name},
                      {"path", g.graph_path},
                      {"hash", g.content_hash.value_or("")},
                      {"status", graph_status_name(g)},
                      {"error", g.error_message.value_or("")},
                      {"dt", g.data_type},
                      {"ops", g.ops},
                      {"flops", g.analytical_flops},
                      {"bytes", g.analytical_io_bytes}});
    std::vector<std::string> picked;  // providers whose first engine (the heuristic's pick) was seen
    for (const auto& row : g.results) {
      const bool pick = std::find(picked.begin(), picked.end(), row.provider) == picked.end();
      if (pick) picked.push_back(row.provider);
      rows.push_back(row_data(g, gi, row, pick));
    }
  }
  const auto& m = run.suite.metadata;
  json versions = json::object();
  if (m.contains("providers") && m["providers"].is_object())
    for (const auto& [name, entry] : m["providers"].items())
      versions[name] = entry.value("version", json(nullptr));
  const auto s = run.suite.summary();
  return {{"path", run.path},
          {"meta",
           {{"timestamp", m.value("timestamp_utc", "")},
            {"tool", m.contains("tool") ? m["tool"] : json(nullptr)},
            {"host", m.contains("host") ? m["host"].value("hostname", "") : ""},
            {"cpu", m.contains("host") ? m["host"].value("cpu_model", "") : ""},
            {"gpu", m.contains("gpu") && m["gpu"].is_object() ? m["gpu"].value("device", "") : ""},
            {"versions", versions},
            {"cache_mode",
             m.contains("options") ? m["options"].value("cache_mode", json(nullptr)) : json(nullptr)},
            {"command", m.contains("command_line") ? m["command_line"] : json(nullptr)}}},
          {"summary",
           {{"graphs", s.graphs},
            {"rows", s.rows},
            {"passed", s.passed},
            {"failed", s.failed},
            {"skipped", s.skipped},
            {"errors", s.errors},
            {"graph_errors", s.graph_errors}}},
          {"complete", run.suite.complete},
          {"graphs", graphs},
          {"rows", rows},
          {"workload", workload_report_to_json(workload_report(run.suite))}};
}

}  // namespace

json html_report_data(const std::vector<RunFile>& runs, const Comparison* comparison) {
  json data = {{"runs", json::array()},
               {"compare", comparison ? comparison_to_json(*comparison) : json(nullptr)}};
  for (const auto& run : runs) data["runs"].push_back(run_data(run));
  return data;
}

std::string html_report(const std::vector<RunFile>& runs, const Comparison* comparison) {
  auto data = html_report_data(runs, comparison).dump(-1, ' ', false, json::error_handler_t::replace);
  // Inside <script>, "</" could end the element early; "<\/" is the same JSON string.
  std::string safe;
  safe.reserve(data.size());
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (data[i] == '<' && i + 1 < data.size() && data[i + 1] == '/') {
      safe += "<\\/";
      ++i;
    } else {
      safe += data[i];
    }
  }
  std::string title = runs.empty() ? "dnnbench report" : "dnnbench report: " + runs.front().path;
  std::string escaped_title;
  for (char c : title) escaped_title += c == '<' ? "&lt;" : c == '&' ? "&amp;" : std::string(1, c);
  return std::string(kHtmlPageHead) + "<title>" + escaped_title + "</title>\n" + std::string(kHtmlPageStyle) +
         "</head>\n<body>\n<script type=\"application/json\" id=\"dnnbench-data\">" + safe + "</script>\n" +
         std::string(kHtmlPageBody) + std::string(kHtmlPageScript) + "</body>\n</html>\n";
}

}  // namespace dnnbench
