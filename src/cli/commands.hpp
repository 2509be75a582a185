#pragma once
// Subcommands of the command line: their options and what they do.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "isolate/isolation.hpp"
#include "report/results.hpp"
#include "run/suite_runner.hpp"
#include "session/run_options.hpp"

namespace dnnbench {

// Documented exit codes (docs/usage.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitValidation = 3;

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RunOptionBinder;

// `dnnbench run`: what the command line and the recipe resolve to. The options of the option
// table (cli/option_table.hpp) land here or in `options`; the rest are the command's own.
struct RunCommand {
  std::vector<std::string> graphs;
  std::vector<std::string> providers, engines;
  RunOptions options;
  std::string output;
  std::string csv;  // --csv FILE: one line per row
  // The tuning database (report/tuning_db.hpp): --export-plans FILE, --plans-from FILE.
  std::string export_plans, plans_from;
  // --profile ncu[:SECTIONS] and where its artefacts go (isolate/profiler.hpp).
  std::string profile, profile_dir = "dnnbench-profile";
  std::string profile_child_plan;  // set by `_child profile`: the plan this profiled child must run
  bool verbose = false, quiet = false;
  std::vector<std::string> skip_engines, ops;
  std::vector<std::string> dims;  // --dim NAME=VALUE for ONNX sources (input/import.hpp)
  std::string config;             // --config recipe.toml
  std::string progress = "auto";  // auto | bar | lines | none
  bool dry_run = false;
  // Reliability (docs/reliability.md).
  std::string journal;  // default: <output>.journal.jsonl
  bool resume = false;
  std::string isolate;     // none | graph | row; empty: by provider (isolate/isolation.hpp)
  double timeout_s = 0;    // 0: none
  int compile_ahead = -1;  // --compile-ahead; -1: default_compile_ahead_children()
  int repeat_pass = 0;     // set by `_child repeat-pass`: this process is pass K of --repeat N
  // The table's options on the parsed subcommand: which the command line gave, and their values.
  std::shared_ptr<const RunOptionBinder> binder;
  // Distribution (docs/distributed.md, cli/distributed_command.hpp).
  std::string shard;  // "I/N"; empty: the whole suite
  bool allow_mixed_ranks = false, allow_shared_device = false;
  double rank_timeout_s = 60;
};

struct ListEnginesCommand {
  std::vector<std::string> graphs;
  std::vector<std::string> providers;
  RunCommand settings;  // --heur-mode and --dim, from the option table
};

void add_run_options(CLI::App& app, RunCommand& command);
void add_list_engines_options(CLI::App& app, ListEnginesCommand& command);
int execute_run(RunCommand& command, const std::vector<std::string>& command_line);
// The options of a parsed `run` resolved into command.options (the recipe applied, providers and
// engines checked): what execute_run does first, and what every child process does
// (cli/child_command.hpp). Throws UsageError.
void resolve_run_options(RunCommand& command);
// The arguments after `run` of a run's command line (program name first): what a child re-reads.
std::vector<std::string> run_arguments(const std::vector<std::string>& command_line);
int execute_list_engines(ListEnginesCommand& command);
int execute_list_providers();
// `dnnbench help [COMMAND]`: the help of the tool, or of one command.
int execute_help(CLI::App& app, const std::string& command);

// What a finished run writes (console summary, tuning records, model summary, JSON, CSV), without
// MPI and on rank 0 under it; 0, or kExitError when an output could not be written.
int write_run_outputs(const RunCommand& command, const SuiteResult& suite,
                      const std::map<std::string, std::int64_t>& layer_counts);

// For cli/distributed_command.cpp: the run's isolation, journal path and console sink.
IsolationMode run_isolation(const RunCommand& command);
std::string run_journal_path(const RunCommand& command);
std::unique_ptr<RunObserver> make_run_console(const RunCommand& command);

}  // namespace dnnbench
