// dnnbench command line: subcommands and their options; everything else lives in the rooms below
// (docs/ARCHITECTURE.md).
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/calibrate_command.hpp"
#include "cli/child_command.hpp"
#include "cli/commands.hpp"
#include "cli/distributed_command.hpp"
#include "cli/import_command.hpp"
#include "cli/plans_command.hpp"
#include "cli/report_commands.hpp"
#include "isolate/child_protocol.hpp"
#include "version/git_revision.hpp"

namespace {

// One line per usage error, naming where to look, instead of CLI11's two.
std::string failure_line(const CLI::App* app, const CLI::Error& e) {
  std::string command;
  for (const auto* sub : app->get_subcommands()) command = " " + sub->get_name();
  return fmt::format("dnnbench: {} (see `dnnbench help{}`)\n", e.what(), command);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> command_line(argv, argv + argc);
  CLI::App app{"dnnbench: benchmark and validate DNN operation graphs on the engines of DNN libraries",
               "dnnbench"};
  app.require_subcommand(1);
  app.failure_message(failure_line);
  app.set_version_flag("--version",
                       std::string("dnnbench ") + DNNBENCH_VERSION + " (" + dnnbench::git_revision() + ")");

  dnnbench::RunCommand run;
  auto* run_cmd =
      app.add_subcommand("run", "Benchmark and validate graphs on every engine of every provider");
  dnnbench::add_run_options(*run_cmd, run);

  dnnbench::ListEnginesCommand list;
  auto* list_cmd =
      app.add_subcommand("list-engines", "List each graph's engines per provider, with their notes");
  dnnbench::add_list_engines_options(*list_cmd, list);

  dnnbench::CalibrateCommand calibrate;
  auto* calibrate_cmd = app.add_subcommand(
      "calibrate", "Measure this machine's noise floor: the same plan timed as independent repeats");
  dnnbench::add_calibrate_options(*calibrate_cmd, calibrate);

  dnnbench::CompareCommand compare;
  auto* compare_cmd = app.add_subcommand(
      "compare", "Compare runs: noise-aware verdicts per row, regressions, what differs between the runs");
  dnnbench::add_compare_options(*compare_cmd, compare);

  dnnbench::ReportCommand report;
  auto* report_cmd = app.add_subcommand(
      "report", "Report a results file: console tables, CSV, or a self-contained HTML page");
  dnnbench::add_report_options(*report_cmd, report);

  dnnbench::ImportCommand import;
  auto* import_cmd = app.add_subcommand(
      "import",
      "Convert MIOpenDriver lines, benchdnn descriptors and ONNX models into graphs + manifest.json");
  dnnbench::add_import_options(*import_cmd, import);

  dnnbench::ExportCommand export_command;
  auto* export_cmd =
      app.add_subcommand("export", "Write graphs in another tool's form (--miopen: MIOpenDriver lines)");
  dnnbench::add_export_options(*export_cmd, export_command);

  dnnbench::MergeCommand merge;
  auto* merge_cmd = app.add_subcommand(
      "merge",
      "Merge the results of one suite run in parts (--shard, MPI runs) into one file, each row once");
  dnnbench::add_merge_options(*merge_cmd, merge);

  dnnbench::PlansMergeCommand plans_merge;
  auto* plans_cmd = app.add_subcommand(
      "plans",
      "Tuning files (--export-plans): `plans merge A B -o C` joins them, keeping conflicting winners");
  auto* plans_merge_cmd = dnnbench::add_plans_options(*plans_cmd, plans_merge);

  auto* providers_cmd = app.add_subcommand(
      "list-providers", "List the providers built into this binary and their library versions");

  // How this binary runs as a child of itself (isolate/child_protocol.hpp); not in help.
  dnnbench::ChildCommand child;
  auto* child_cmd = app.add_subcommand(std::string(dnnbench::kChildSubcommand), "");
  child_cmd->group("");
  dnnbench::add_child_options(*child_cmd, child);

  std::string help_topic;
  auto* help_cmd = app.add_subcommand("help", "Print the help of dnnbench, or of one command");
  help_cmd->add_option("command", help_topic, "The command whose options to print")->type_name("COMMAND");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : dnnbench::kExitUsage;
  }
  try {
    if (run_cmd->parsed()) return dnnbench::execute_run(run, command_line);
    if (list_cmd->parsed()) return dnnbench::execute_list_engines(list);
    if (calibrate_cmd->parsed()) return dnnbench::execute_calibrate(calibrate);
    if (compare_cmd->parsed()) return dnnbench::execute_compare(compare);
    if (report_cmd->parsed()) return dnnbench::execute_report(report);
    if (import_cmd->parsed()) return dnnbench::execute_import(import);
    if (export_cmd->parsed()) return dnnbench::execute_export(export_command);
    if (merge_cmd->parsed()) return dnnbench::execute_merge(merge);
    if (plans_merge_cmd->parsed()) return dnnbench::execute_plans_merge(plans_merge);
    if (help_cmd->parsed()) return dnnbench::execute_help(app, help_topic);
    if (providers_cmd->parsed()) return dnnbench::execute_list_providers();
    if (child_cmd->parsed()) return dnnbench::execute_child(child, command_line.front());
    return dnnbench::kExitUsage;
  } catch (const dnnbench::UsageError& e) {
    std::cerr << "dnnbench: " << e.what() << "\n";
    return dnnbench::kExitUsage;
  }
}
