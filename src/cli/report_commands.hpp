#pragma once
// `dnnbench compare` and `dnnbench report`: sinks over results files; they never measure.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace dnnbench {

struct CompareCommand {
  std::vector<std::string> files;  // A, then one or more B
  std::string by = "engine";
  double min_effect = 0.03;
  bool allow_mismatch = false;
  bool allow_different_conditions = false;
  std::string json, csv, html;
};

struct ReportCommand {
  std::vector<std::string> files;
  std::string csv, html;
  std::string by = "engine";  // of the compare page, with two files
};

void add_compare_options(CLI::App& app, CompareCommand& command);
void add_report_options(CLI::App& app, ReportCommand& command);
// Exit codes: 0 no regression, 1 a regression, 2 usage, unreadable file, invalidating mismatch, or
// a regression under machine conditions that differ (a run other work disturbed) without
// --allow-different-conditions.
int execute_compare(const CompareCommand& command);
int execute_report(const ReportCommand& command);

}  // namespace dnnbench
