#pragma once
// The run options, in one table: every `dnnbench run` flag and its recipe key, value kind, range,
// help text and default come from here. The command line (cli/option_binder.hpp), the recipe
// reader (cli/recipe.hpp), `--help` and docs/recipes.md's key table are all generated from it,
// so they cannot disagree; tests/cli/option_table_test.cpp checks the docs against it.
//
// Adding a run option is one entry in run_option_table() (option_table.cpp): its flags, recipe
// key, kind, range, help, default, and a setter that stores the parsed value in the RunCommand.
// Then regenerate the doc table: `DNNBENCH_UPDATE_DOCS=1 build/default/tests/dnnbench_unit_tests
// --gtest_filter='OptionDocs.*'`, and describe the option in README's option table.
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace dnnbench {

struct RunCommand;

enum class OptionKind {
  flag,       // no value on the command line; a boolean in a recipe
  integer,    // a whole number in [min, max]
  seed,       // a whole number in [0, 2^64)
  number,     // a finite real number in [min, max]
  bytes,      // a byte count: an integer, or a number with a unit (16GiB, 512M; powers of 1024)
  text,       // a string
  path,       // a string; a recipe's relative path resolves against the recipe's folder
  choice,     // one of `choices` (case-insensitive)
  list,       // strings: repeated or comma-separated flags; a string or an array in a recipe
  path_list,  // a list of paths (resolved like `path`)
};

// bool (flag), int64 (integer, bytes), uint64 (seed), double (number), string (text, path,
// choice) or a list of strings (list, path_list).
using OptionValue =
    std::variant<bool, std::int64_t, std::uint64_t, double, std::string, std::vector<std::string>>;

struct RunOptionSpec {
  std::string flags{};  // CLI11 names, e.g. "-o,--output"; the first long name is the option's name
  std::string key{};    // recipe key: the long name with `_` for `-`, plural for lists
  std::string group{};  // heading in --help
  OptionKind kind = OptionKind::flag;
  std::string value_name{};  // in --help ("N", "MS", "FILE"); choices show as a|b|c
  std::string help{};
  std::string default_text{};  // shown as "(default: ...)" in --help and the docs; empty: none
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;  // min itself is refused (> min)
  std::vector<std::string> choices{};
  std::string recipe_note{};  // added to the recipe type in the docs (e.g. the engine matrix)
  std::function<void(RunCommand&, const OptionValue&)> set{};

  std::string long_name() const;  // "--output"
  bool takes_value() const { return kind != OptionKind::flag; }
  bool is_list() const { return kind == OptionKind::list || kind == OptionKind::path_list; }
};

const std::vector<RunOptionSpec>& run_option_table();
const RunOptionSpec* find_run_option_by_key(std::string_view key);

// Thrown with the reason alone ("must be >= 1, got 0"); callers prefix the flag or recipe key.
struct OptionValueError {
  std::string reason;
};

// A command-line value of a scalar option, parsed and range-checked. Throws OptionValueError.
OptionValue parse_option_text(const RunOptionSpec& spec, const std::string& text);
// Range checks shared by the command line and recipes; throw OptionValueError.
void check_option_range(const RunOptionSpec& spec, double value, const std::string& shown);
std::string canonical_choice(const RunOptionSpec& spec, const std::string& text);
// "16GiB", "512M", "1000000", "1.5G" -> bytes; nullopt-like failure throws OptionValueError.
std::int64_t parse_byte_count(const std::string& text);
// 8589934592 -> "8GiB"; counts that are no whole unit stay plain numbers.
std::string format_byte_count(std::int64_t bytes);

// --help text of an option: its help and its default.
std::string option_help(const RunOptionSpec& spec);
// The recipe key table of docs/recipes.md (markdown, one row per option).
std::string recipe_key_table_markdown();

}  // namespace dnnbench
