#include "cli/plans_command.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <iostream>

#include "cli/commands.hpp"
#include "report/tuning_db.hpp"

namespace dnnbench {

CLI::App* add_plans_options(CLI::App& plans, PlansMergeCommand& c) {
  plans.require_subcommand(1);
  auto* merge = plans.add_subcommand(
      "merge", "Merge tuning files: identical records once, conflicting winners of one key all kept");
  merge->add_option("files", c.files, "Tuning files (JSON lines, --export-plans) to merge, in order")
      ->required()
      ->type_name("FILE");
  merge->add_option("-o,--output", c.output, "Write the merged tuning file here")
      ->required()
      ->type_name("FILE");
  return merge;
}

int execute_plans_merge(const PlansMergeCommand& c) {
  std::vector<nlohmann::json> merged_records;
  std::size_t read = 0, duplicates = 0;
  std::vector<std::string> conflicts;
  try {
    for (const auto& path : c.files) {
      const auto records = read_tuning_file(path);
      read += records.size();
      auto merged = merge_tuning_records(merged_records, records);
      duplicates += merged.duplicates;
      merged_records = std::move(merged.records);
    }
    // Conflicts are listed once, over the whole result.
    conflicts = merge_tuning_records(merged_records, {}).conflicts;
    write_tuning_file(c.output, merged_records);
  } catch (const std::exception& e) {
    fmt::print(std::cerr, "dnnbench: plans merge: {}\n", e.what());
    return kExitError;
  }
  fmt::print(std::cout,
             "plans merge: {} records read from {} files, {} identical dropped, {} written to {}\n", read,
             c.files.size(), duplicates, merged_records.size(), c.output);
  if (!conflicts.empty()) {
    fmt::print(std::cout, "{} key(s) with conflicting winners (all kept):\n", conflicts.size());
    for (const auto& line : conflicts) fmt::print(std::cout, "  {}\n", line);
  }
  return kExitOk;
}

}  // namespace dnnbench
