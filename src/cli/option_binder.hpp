#pragma once
// Puts the run option table (cli/option_table.hpp) on a CLI11 command, and after parsing sets
// each option in a RunCommand: from the command line where it was given, else from the recipe.
#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cli/option_table.hpp"

namespace dnnbench {

struct Recipe;

using OptionKeys = std::set<std::string, std::less<>>;

class RunOptionBinder {
 public:
  using Filter = std::function<bool(const RunOptionSpec&)>;
  // Adds to `app` every option of the table that `keep` accepts (all without a filter).
  explicit RunOptionBinder(CLI::App& app, const Filter& keep = {});
  RunOptionBinder(const RunOptionBinder&) = delete;
  RunOptionBinder& operator=(const RunOptionBinder&) = delete;

  // True when the command line gave the option whose recipe key is `key`.
  bool given(std::string_view key) const;
  // Sets in `command` each option the command line gave and, for the others, the value `recipe`
  // holds (none: nullptr); also the recipe's engine matrix unless --engine was given. Returns the
  // recipe keys of the options set. Throws UsageError naming the flag for a command-line value
  // that is wrong.
  OptionKeys apply(RunCommand& command, const Recipe* recipe) const;

 private:
  struct Slot {
    const RunOptionSpec* spec = nullptr;
    CLI::Option* option = nullptr;
    std::string text;               // scalar options
    std::vector<std::string> list;  // list options
  };
  OptionValue command_line_value(const Slot& slot) const;
  std::vector<std::unique_ptr<Slot>> slots_;  // unique_ptr: CLI11 keeps pointers to the storage
};

// Options that contradict each other: throws UsageError naming both. `given` (from apply) says
// which the user set: a minimum the user set above a maximum (--min-time-ms above --max-time-ms,
// --min-iters above --max-iters) is refused, while a default minimum yields to the user's
// maximum (--max-time-ms 10 alone lowers --min-time-ms to 10); -v with -q is refused.
void check_option_conflicts(RunCommand& command, const OptionKeys& given);

}  // namespace dnnbench
