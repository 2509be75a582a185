#pragma once
// TOML recipes (`dnnbench run --config recipe.toml`): every run option of the option table
// (cli/option_table.hpp) under its recipe key (docs/recipes.md), plus an [[engines]] matrix.
// `version = 1` is required; unknown keys, wrong types and out-of-range values are errors naming
// the recipe file, line, column and key. Relative paths resolve against the recipe's folder.
// Command-line flags override the recipe (cli/option_binder.hpp applies both).
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.hpp"
#include "cli/option_table.hpp"
#include "session/run_options.hpp"

namespace dnnbench {

// A recipe that cannot be used; a usage error (exit code 2).
class RecipeError : public UsageError {
 public:
  using UsageError::UsageError;
};

struct Recipe {
  std::filesystem::path path;
  // By recipe key; each value already checked against its option's kind and range, paths resolved.
  std::map<std::string, OptionValue, std::less<>> values;
  std::vector<EngineChoice> engine_matrix;

  // The value of `key` as T, or nullopt when the recipe does not hold it.
  template <class T>
  std::optional<T> get(std::string_view key) const {
    const auto found = values.find(key);
    if (found == values.end()) return std::nullopt;
    return std::get<T>(found->second);
  }
};

// Throws RecipeError. `source` names the recipe in messages and anchors relative paths.
Recipe parse_recipe(std::string_view text, const std::filesystem::path& source);
Recipe read_recipe(const std::filesystem::path& path);

}  // namespace dnnbench
