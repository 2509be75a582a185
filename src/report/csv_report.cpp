#include "report/csv_report.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "report/csv.hpp"
#include "report/peaks.hpp"

namespace dnnbench {
namespace {

std::optional<double> opt(double value) {
  return value;
}

// median, p5, p95, CI lo, CI hi of a time (empty fields when absent).
void add_time(std::vector<std::string>& f, const std::optional<Stats>& s) {
  if (!s) {
    f.insert(f.end(), 5, "");
    return;
  }
  for (double v : {s->median, s->p5, s->p95, s->median_ci_lo, s->median_ci_hi}) f.push_back(csv_number(v));
}

std::string csv_message(const RowResult& row) {
  if (row.error_message) return *row.error_message;
  if (row.skip_reason) return *row.skip_reason;
  if (row.oracle_error) return "oracle: " + *row.oracle_error;
  if (row.validation_failed() && row.correctness)
    for (const auto& o : row.correctness->outputs)
      if (!o.passed) return o.tensor + ": " + o.first_mismatch;
  return "";
}

}  // namespace

std::vector<std::string> results_csv_columns() {
  return {"graph",
          "graph_hash",
          "graph_path",
          "data_type",
          "provider",
          "engine_id",
          "engine_name",
          "plan",
          "status",
          "verdict",
          "kernel_median_ms",
          "kernel_p5_ms",
          "kernel_p95_ms",
          "kernel_ci_lo_ms",
          "kernel_ci_hi_ms",
          "host_median_ms",
          "host_p5_ms",
          "host_p95_ms",
          "host_ci_lo_ms",
          "host_ci_hi_ms",
          "n",
          "batch",
          "timing_method",
          "cache_mode",
          "tflops",
          "gb_per_s",
          "peak_tflops",
          "pct_of_peak_flops",
          "peak_flops_basis",
          "peak_gb_per_s",
          "pct_of_peak_bandwidth",
          "peak_source",
          "max_abs_error",
          "max_rel_error",
          "oracle_speedup",
          "oracle_ci_lo",
          "oracle_ci_hi",
          "oracle_significant",
          "message"};
}

void write_results_csv(std::ostream& out, const SuiteResult& suite) {
  write_csv_line(out, results_csv_columns());
  for (const auto& g : suite.graphs)
    for (const auto& row : g.results) {
      std::vector<std::string> f = {g.graph_name,
                                    g.content_hash.value_or(""),
                                    g.graph_path,
                                    g.data_type,
                                    row.provider,
                                    row.engine_id.value_or(""),
                                    row.engine_name.value_or(""),
                                    row.plan_name.value_or(""),
                                    std::string(row_status_name(row.status)),
                                    !row.correctness          ? ""
                                    : row.correctness->passed ? "passed"
                                                              : "failed"};
      add_time(f, row.gpu_kernel_stats);
      add_time(f, row.host_stats);
      const auto& primary = primary_stats(row);
      f.push_back(primary ? std::to_string(primary->n) : "");
      f.push_back(row.timing ? std::to_string(row.timing->batch) : "");
      f.push_back(row.timing ? row.timing->method : "");
      f.push_back(row.timing ? row.timing->cache_mode : "");
      const auto flops = achieved_flops(row);
      const auto bytes = achieved_bytes_per_s(row);
      f.push_back(csv_number(flops ? std::optional(*flops / 1e12) : std::nullopt));
      f.push_back(csv_number(bytes ? std::optional(*bytes / 1e9) : std::nullopt));
      const auto share = peak_share(g, row);
      std::optional<double> peak_flops;
      if (row.peak)
        peak_flops = share.flops_basis == "matrix" ? row.peak->matrix_flops : row.peak->vector_flops;
      f.push_back(csv_number(peak_flops ? std::optional(*peak_flops / 1e12) : std::nullopt));
      f.push_back(csv_number(share.flops ? std::optional(100 * *share.flops) : std::nullopt));
      f.push_back(share.flops_basis);
      f.push_back(csv_number(row.peak && row.peak->dram_bytes_per_s
                                 ? std::optional(*row.peak->dram_bytes_per_s / 1e9)
                                 : std::nullopt));
      f.push_back(csv_number(share.bandwidth ? std::optional(100 * *share.bandwidth) : std::nullopt));
      f.push_back(row.peak ? row.peak->source : "");
      f.push_back(row.correctness ? csv_number(opt(row.correctness->max_abs_diff)) : "");
      f.push_back(row.correctness ? csv_number(opt(row.correctness->max_rel_diff)) : "");
      if (const auto& d = row.oracle_delta) {
        f.push_back(csv_number(d->speedup));
        f.push_back(csv_number(d->ci_lo));
        f.push_back(csv_number(d->ci_hi));
        f.push_back(d->significant ? "true" : "false");
      } else {
        f.insert(f.end(), 4, "");
      }
      f.push_back(csv_message(row));
      write_csv_line(out, f);
    }
}

void write_text_file(const std::string& path, const std::string& text) {
  const std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  const auto temporary = path + ".tmp";
  {
    std::ofstream file(temporary, std::ios::binary);
    if (!file) throw std::runtime_error("cannot write " + temporary);
    file << text;
    if (!file) throw std::runtime_error("error writing " + temporary);
  }
  std::error_code ec;
  std::filesystem::rename(temporary, p, ec);
  if (ec) throw std::runtime_error("cannot move " + temporary + " to " + path + ": " + ec.message());
}

}  // namespace dnnbench
