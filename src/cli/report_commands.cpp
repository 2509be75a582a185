#include "cli/report_commands.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <iostream>
#include <sstream>

#include "cli/commands.hpp"
#include "report/compare.hpp"
#include "report/compare_report.hpp"
#include "report/console_report.hpp"
#include "report/csv_report.hpp"
#include "report/html_report.hpp"
#include "report/json_read.hpp"
#include "report/json_report.hpp"
#include "report/peaks.hpp"

namespace dnnbench {
namespace {

std::vector<RunFile> read_runs(const std::vector<std::string>& paths) {
  std::vector<RunFile> runs;
  for (const auto& path : paths) {
    try {
      runs.push_back({path, read_results_file(path)});
    } catch (const std::exception& e) {
      throw UsageError(e.what());
    }
    attach_peaks(runs.back().suite);  // files written before peaks were recorded
  }
  return runs;
}

void write_or_fail(const std::string& path, const std::string& text) {
  try {
    write_text_file(path, text);
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
}

}  // namespace

void add_compare_options(CLI::App& app, CompareCommand& c) {
  app.add_option("files", c.files, "Results files: A (the baseline), then one or more B compared with it")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--by", c.by,
                 "engine: the same engine in both; best: each graph's fastest passing row; heuristic: each "
                 "provider's top pick")
      ->check(CLI::IsMember({"engine", "best", "heuristic"}));
  app.add_option("--min-effect", c.min_effect,
                 "Smallest change called FASTER or SLOWER (a fraction), when the runs' recorded noise floor "
                 "is smaller")
      ->check(CLI::Range(0.0, 10.0));
  app.add_flag("--allow-mismatch", c.allow_mismatch,
               "Compare even when the device, cache mode or timing method differ (else exit 2)");
  app.add_flag(
      "--allow-different-conditions", c.allow_different_conditions,
      "Report regressions (exit 1) even when the machine's conditions differ between the runs "
      "(other processes' load, cpufreq governor, oversubscription; else exit 2 when a row is SLOWER)");
  app.add_option("--json", c.json, "Write the comparison as JSON to this file");
  app.add_option("--csv", c.csv, "Write the compared rows as CSV to this file");
  app.add_option("--html", c.html, "Write an HTML report of the runs with the compare page to this file");
}

void add_report_options(CLI::App& app, ReportCommand& c) {
  app.add_option("files", c.files, "Results files (`run -o`); with two, the HTML has a compare page")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--csv", c.csv, "Write one CSV line per row to this file (one results file only)");
  app.add_option("--html", c.html, "Write a self-contained HTML report (no network needed) to this file");
  app.add_option("--by", c.by, "How the compare page joins two runs: engine, best or heuristic")
      ->check(CLI::IsMember({"engine", "best", "heuristic"}));
}

int execute_compare(const CompareCommand& c) {
  if (c.files.size() < 2) throw UsageError("compare needs two results files at least: A.json B.json");
  const auto runs = read_runs(c.files);
  CompareOptions options;
  options.by = *compare_by_from_name(c.by);  // CLI11 checked the name
  options.min_effect = c.min_effect;
  std::vector<Comparison> comparisons;
  for (std::size_t i = 1; i < runs.size(); ++i)
    comparisons.push_back(compare_runs(runs[0], runs[i], options));
  bool invalid = false, regression = false, disturbed = false;
  for (std::size_t i = 0; i < comparisons.size(); ++i) {
    if (i) fmt::print(std::cout, "\n");
    print_comparison(std::cout, comparisons[i]);
    invalid = invalid || comparisons[i].invalid();
    disturbed = disturbed || comparisons[i].disturbed();
    regression = regression || !comparisons[i].regressions().empty();
  }
  if (!c.json.empty()) {
    nlohmann::json all = nlohmann::json::array();
    for (const auto& comparison : comparisons) all.push_back(comparison_to_json(comparison));
    write_or_fail(c.json, nlohmann::json{{"comparisons", all}}.dump(2) + "\n");
  }
  if (!c.csv.empty()) {
    std::ostringstream text;
    for (std::size_t i = 0; i < comparisons.size(); ++i) {
      std::ostringstream one;
      write_comparison_csv(one, comparisons[i]);
      auto lines = one.str();
      if (i) lines.erase(0, lines.find('\n') + 1);  // one header line
      text << lines;
    }
    write_or_fail(c.csv, text.str());
  }
  if (!c.html.empty())
    write_or_fail(c.html, html_report(runs, comparisons.empty() ? nullptr : &comparisons.front()));
  if (invalid && !c.allow_mismatch) {
    fmt::print(std::cerr,
               "dnnbench: compare: the runs differ in a condition that makes the comparison invalid (marked "
               "INVALIDATES above); give --allow-mismatch to compare anyway\n");
    return kExitUsage;
  }
  if (disturbed) {
    // A regression seen under other machine conditions may be the machine's: it is not reported
    // as one (exit 1) unless the user accepts the conditions; no regression is still news.
    const bool refuse = regression && !c.allow_different_conditions;
    fmt::print(std::cerr,
               "dnnbench: {}compare: the machine's conditions differ between the runs (marked MACHINE "
               "above: other processes' load, governor or oversubscription), so a verdict may measure the "
               "machine, not the code{}\n",
               refuse ? "" : "warning: ",
               refuse ? "; rerun on a quiet machine, or give --allow-different-conditions to report the "
                        "regressions anyway"
                      : "");
    if (refuse) return kExitUsage;
  }
  return regression ? kExitError : kExitOk;
}

int execute_report(const ReportCommand& c) {
  const auto runs = read_runs(c.files);
  if (!c.csv.empty()) {
    if (runs.size() != 1) throw UsageError("report --csv writes one results file; give one");
    std::ostringstream text;
    write_results_csv(text, runs.front().suite);
    write_or_fail(c.csv, text.str());
    fmt::print(std::cout, "CSV written to {}\n", c.csv);
  }
  if (!c.html.empty()) {
    std::optional<Comparison> comparison;
    if (runs.size() == 2) {
      CompareOptions options;
      options.by = *compare_by_from_name(c.by);
      comparison = compare_runs(runs[0], runs[1], options);
    }
    write_or_fail(c.html, html_report(runs, comparison ? &*comparison : nullptr));
    fmt::print(std::cout, "HTML written to {}\n", c.html);
  }
  if (c.csv.empty() && c.html.empty())
    for (const auto& run : runs) {
      fmt::print(std::cout, "{}\n", run.path);
      for (const auto& graph : run.suite.graphs) print_graph_table(std::cout, graph);
      print_suite_summary(std::cout, run.suite);
    }
  return kExitOk;
}

}  // namespace dnnbench
