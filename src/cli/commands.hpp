#pragma once
// Subcommands of the command line: their options and what they do.
#include <CLI/CLI.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "run/isolation.hpp"
#include "run/run_options.hpp"
#include "run/suite_runner.hpp"

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

struct RunCommand {
  std::vector<std::string> graphs;
  std::vector<std::string> providers, engines;
  RunOptions options;
  std::int64_t iters = 0;       // 0: adaptive
  std::int64_t max_memory = 0;  // 0: a safe fraction of the free memory (run/memory_budget.hpp)
  double rtol = -1, atol = -1;
  std::string output, dump_tensors;
  bool verbose = false, quiet = false;
  std::vector<std::string> skip_engines, ops;
  std::string config;             // --config recipe.toml
  std::string progress = "auto";  // auto | bar | lines | none
  bool dry_run = false;
  // Reliability (docs/reliability.md).
  std::string journal;  // default: <output>.journal.jsonl
  bool resume = false;
  std::string isolate;   // none | graph | row; empty: by provider (run/isolation.hpp)
  double timeout_s = 0;  // 0: none
  std::string child_graph, child_path, child_journal;  // hidden: this process is an isolated child
  std::size_t child_rows = 0;
  // Distribution (docs/distributed.md, cli/distributed_command.hpp).
  std::string shard;  // "I/N"; empty: the whole suite
  bool allow_mixed_ranks = false, allow_shared_device = false;
  double rank_timeout_s = 60;
  const CLI::App* app = nullptr;  // the parsed subcommand: which options the command line gave
};

struct ListEnginesCommand {
  std::vector<std::string> graphs;
  std::vector<std::string> providers;
  ProviderSettings provider_settings;
};

void add_run_options(CLI::App& app, RunCommand& command);
void add_list_engines_options(CLI::App& app, ListEnginesCommand& command);
int execute_run(RunCommand& command, const std::vector<std::string>& command_line);
int execute_list_engines(const ListEnginesCommand& command);
int execute_list_providers();

// For cli/distributed_command.cpp: the run's isolation, journal path and console sink.
IsolationMode run_isolation(const RunCommand& command);
std::string run_journal_path(const RunCommand& command);
std::unique_ptr<RunObserver> make_run_console(const RunCommand& command);

}  // namespace dnnbench
