// dnnbench command line: subcommands and their options; everything else lives in run/ and report/.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/calibrate_command.hpp"
#include "cli/commands.hpp"
#include "cli/distributed_command.hpp"
#include "version/git_revision.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> command_line(argv, argv + argc);
  CLI::App app{"dnnbench: benchmark and validate DNN operation graphs on the engines of DNN libraries"};
  app.require_subcommand(1);
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

  dnnbench::MergeCommand merge;
  auto* merge_cmd = app.add_subcommand(
      "merge",
      "Merge the results of one suite run in parts (--shard, MPI runs) into one file, each row once");
  dnnbench::add_merge_options(*merge_cmd, merge);

  app.add_subcommand("list-providers",
                     "List the providers built into this binary and their library versions");

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
    if (merge_cmd->parsed()) return dnnbench::execute_merge(merge);
    return dnnbench::execute_list_providers();
  } catch (const dnnbench::UsageError& e) {
    std::cerr << "dnnbench: " << e.what() << "\n";
    return dnnbench::kExitUsage;
  }
}
