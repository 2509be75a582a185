#pragma once
// TOML recipes (`dnnbench run --config recipe.toml`): every run option under the command line's
// name with underscores (docs/recipes.md), plus an [[engines]] matrix. `version = 1` is required;
// unknown keys, wrong types and out-of-range values are errors naming the recipe file, line,
// column and key. Relative paths resolve against the recipe's folder. Command-line flags
// override the recipe.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.hpp"
#include "run/run_options.hpp"

namespace dnnbench {

// A recipe that cannot be used; a usage error (exit code 2).
class RecipeError : public UsageError {
 public:
  using UsageError::UsageError;
};

struct Recipe {
  std::filesystem::path path;
  std::optional<std::vector<std::string>> graphs, providers, engines, skip_engines, ops;
  std::vector<EngineChoice> engine_matrix;
  std::optional<std::int64_t> warmup, iters, min_iters, max_iters, max_graph_bytes, max_memory;
  std::optional<std::int64_t> max_archive_entry_bytes, max_archive_bytes, seed;
  std::optional<double> target_ci, min_time_ms, max_time_ms, rtol, atol;
  std::optional<std::string> output, dump_tensors, progress, journal, isolate;
  std::optional<double> timeout_s;
  std::optional<bool> save_samples, verbose, quiet, dry_run;
};

// Throws RecipeError. `source` names the recipe in messages and anchors relative paths.
Recipe parse_recipe(std::string_view text, const std::filesystem::path& source);
Recipe read_recipe(const std::filesystem::path& path);

// Sets in `command` every option the recipe holds and the command line (`app`, already parsed)
// did not give.
void apply_recipe(const Recipe& recipe, RunCommand& command, const CLI::App& app);

}  // namespace dnnbench
