#pragma once
// `dnnbench plans merge A B... -o C`: joins tuning files (report/tuning_db.hpp, docs/tuning-db.md).
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace dnnbench {

struct PlansMergeCommand {
  std::vector<std::string> files;
  std::string output;
};

// Adds `merge` under the `plans` subcommand.
CLI::App* add_plans_options(CLI::App& plans, PlansMergeCommand& merge);
// Exit codes: 0 merged (conflicts are listed, not an error), 1 a file unreadable or not a tuning
// file, or the output cannot be written.
int execute_plans_merge(const PlansMergeCommand& command);

}  // namespace dnnbench
