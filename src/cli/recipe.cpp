#include "cli/recipe.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include <toml++/toml.h>

namespace dnnbench {
namespace {

namespace fs = std::filesystem;

std::string type_name(toml::node_type type) {
  switch (type) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a floating-point number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    case toml::node_type::date:
    case toml::node_type::time:
    case toml::node_type::date_time:
      return "a date/time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

// Reads one recipe: every error names the file, the line and column, and the key.
class RecipeParser {
 public:
  explicit RecipeParser(const fs::path& source) : source_(source) { recipe_.path = source; }

  Recipe parse(std::string_view text) {
    toml::table root;
    try {
      root = toml::parse(text, source_.string());
    } catch (const toml::parse_error& e) {
      throw RecipeError(fmt::format("{}: not valid TOML: {}", where(e.source()), e.description()));
    }
    const toml::node* version = root.get("version");
    if (!version)
      throw RecipeError(
          fmt::format("{}: missing key 'version' (write `version = 1` at the top)", source_.string()));
    const auto v = version->value<std::int64_t>();
    if (!version->is_integer() || *v != 1)
      throw RecipeError(fmt::format("{}: key 'version': this dnnbench reads recipe version 1, got {}",
                                    where(version->source()), describe(*version)));
    for (auto&& [key, node] : root) {
      const std::string name(key.str());
      if (name == "version") continue;
      const auto handler = handlers().find(name);
      if (handler == handlers().end())
        throw RecipeError(
            fmt::format("{}: unknown key '{}' (docs/recipes.md lists the keys)", where(key.source()), name));
      handler->second(*this, name, node);
    }
    return std::move(recipe_);
  }

 private:
  using Handler = std::function<void(RecipeParser&, const std::string&, const toml::node&)>;

  std::string where(const toml::source_region& region) const {
    return fmt::format("{}:{}:{}", source_.string(), region.begin.line, region.begin.column);
  }

  static std::string describe(const toml::node& node) {
    if (node.is_string()) return fmt::format("\"{}\"", node.value<std::string>().value_or(""));
    if (node.is_integer()) return std::to_string(*node.value<std::int64_t>());
    return type_name(node.type());
  }

  [[noreturn]] void fail(const toml::node& node, const std::string& key, const std::string& message) const {
    throw RecipeError(fmt::format("{}: key '{}': {}", where(node.source()), key, message));
  }

  void expect(const toml::node& node, const std::string& key, bool ok, const std::string& wanted) const {
    if (!ok) fail(node, key, fmt::format("expected {}, got {}", wanted, type_name(node.type())));
  }

  std::int64_t integer(const std::string& key, const toml::node& node, std::int64_t min) const {
    expect(node, key, node.is_integer(), "an integer");
    const auto value = *node.value<std::int64_t>();
    if (value < min) fail(node, key, fmt::format("must be >= {}, got {}", min, value));
    return value;
  }

  double number(const std::string& key, const toml::node& node, double min, double max = 1e300,
                bool min_exclusive = false) const {
    expect(node, key, node.is_integer() || node.is_floating_point(), "a number");
    const double value = *node.value<double>();
    if (value < min || (min_exclusive && value == min) || value > max)
      fail(node, key,
           max < 1e300 ? fmt::format("must be in [{}, {}], got {}", min, max, value)
                       : fmt::format("must be {} {}, got {}", min_exclusive ? ">" : ">=", min, value));
    return value;
  }

  std::string string(const std::string& key, const toml::node& node) const {
    expect(node, key, node.is_string(), "a string");
    return *node.value<std::string>();
  }

  bool boolean(const std::string& key, const toml::node& node) const {
    expect(node, key, node.is_boolean(), "a boolean (true or false)");
    return *node.value<bool>();
  }

  // A string or an array of strings.
  std::vector<std::string> strings(const std::string& key, const toml::node& node) const {
    if (node.is_string()) return {*node.value<std::string>()};
    expect(node, key, node.is_array(), "a string or an array of strings");
    std::vector<std::string> values;
    for (const auto& item : *node.as_array()) {
      if (!item.is_string())
        fail(item, key, fmt::format("expected an array of strings, got {} in it", type_name(item.type())));
      values.push_back(*item.value<std::string>());
    }
    return values;
  }

  // Relative paths are relative to the recipe's folder, so a recipe works from any directory.
  std::string resolve(const std::string& path) const {
    if (path.empty() || fs::path(path).is_absolute()) return path;
    const auto folder = source_.parent_path();
    return folder.empty() ? path : (folder / path).lexically_normal().string();
  }

  // `engines`: an array of engine ids/names (like --engine), or an array of tables: the matrix.
  void engines(const std::string& key, const toml::node& node) {
    if (node.is_string() ||
        (node.is_array() && (node.as_array()->empty() || !node.as_array()->front().is_table()))) {
      recipe_.engines = strings(key, node);
      return;
    }
    expect(node, key, node.is_array_of_tables(),
           "an array of engine ids, or [[engines]] tables with provider, id and an optional label");
    for (const auto& item : *node.as_array()) {
      const auto& table = *item.as_table();
      EngineChoice choice;
      bool has_provider = false, has_id = false;
      for (auto&& [field_key, value] : table) {
        const std::string field(field_key.str());
        const std::string full = fmt::format("engines.{}", field);
        if (field == "provider") {
          choice.provider = string(full, value);
          has_provider = true;
        } else if (field == "id") {
          choice.id = string(full, value);
          has_id = true;
        } else if (field == "label") {
          choice.label = string(full, value);
        } else {
          throw RecipeError(fmt::format("{}: unknown key '{}' in [[engines]] (keys: provider, id, label)",
                                        where(field_key.source()), full));
        }
      }
      if (!has_provider || !has_id)
        fail(item, key, fmt::format("an [[engines]] entry needs `{}`", has_provider ? "id" : "provider"));
      recipe_.engine_matrix.push_back(std::move(choice));
    }
  }

  static const std::map<std::string, Handler>& handlers() {
    using P = RecipeParser;
    using N = toml::node;
    using S = std::string;
    static const std::map<std::string, Handler> table = {
        {"graphs",
         [](P& p, const S& k, const N& n) {
           auto list = p.strings(k, n);
           for (auto& g : list) g = p.resolve(g);
           p.recipe_.graphs = list;
         }},
        {"providers", [](P& p, const S& k, const N& n) { p.recipe_.providers = p.strings(k, n); }},
        {"engines", [](P& p, const S& k, const N& n) { p.engines(k, n); }},
        {"skip_engines", [](P& p, const S& k, const N& n) { p.recipe_.skip_engines = p.strings(k, n); }},
        {"ops", [](P& p, const S& k, const N& n) { p.recipe_.ops = p.strings(k, n); }},
        {"warmup", [](P& p, const S& k, const N& n) { p.recipe_.warmup = p.integer(k, n, 0); }},
        {"iters", [](P& p, const S& k, const N& n) { p.recipe_.iters = p.integer(k, n, 1); }},
        {"min_iters", [](P& p, const S& k, const N& n) { p.recipe_.min_iters = p.integer(k, n, 1); }},
        {"max_iters", [](P& p, const S& k, const N& n) { p.recipe_.max_iters = p.integer(k, n, 1); }},
        {"target_ci", [](P& p, const S& k, const N& n) { p.recipe_.target_ci = p.number(k, n, 1e-6, 1.0); }},
        {"min_time_ms", [](P& p, const S& k, const N& n) { p.recipe_.min_time_ms = p.number(k, n, 0); }},
        {"max_time_ms",
         [](P& p, const S& k, const N& n) { p.recipe_.max_time_ms = p.number(k, n, 0, 1e300, true); }},
        {"seed", [](P& p, const S& k, const N& n) { p.recipe_.seed = p.integer(k, n, 0); }},
        {"output", [](P& p, const S& k, const N& n) { p.recipe_.output = p.resolve(p.string(k, n)); }},
        {"rtol", [](P& p, const S& k, const N& n) { p.recipe_.rtol = p.number(k, n, 0); }},
        {"atol", [](P& p, const S& k, const N& n) { p.recipe_.atol = p.number(k, n, 0); }},
        {"dump_tensors",
         [](P& p, const S& k, const N& n) { p.recipe_.dump_tensors = p.resolve(p.string(k, n)); }},
        {"save_samples", [](P& p, const S& k, const N& n) { p.recipe_.save_samples = p.boolean(k, n); }},
        {"max_graph_bytes",
         [](P& p, const S& k, const N& n) { p.recipe_.max_graph_bytes = p.integer(k, n, 1); }},
        {"max_memory", [](P& p, const S& k, const N& n) { p.recipe_.max_memory = p.integer(k, n, 1); }},
        {"max_archive_entry_bytes",
         [](P& p, const S& k, const N& n) { p.recipe_.max_archive_entry_bytes = p.integer(k, n, 1); }},
        {"max_archive_bytes",
         [](P& p, const S& k, const N& n) { p.recipe_.max_archive_bytes = p.integer(k, n, 1); }},
        {"progress",
         [](P& p, const S& k, const N& n) {
           const auto mode = p.string(k, n);
           if (mode != "auto" && mode != "bar" && mode != "lines" && mode != "none")
             p.fail(n, k, fmt::format("expected \"auto\", \"bar\", \"lines\" or \"none\", got \"{}\"", mode));
           p.recipe_.progress = mode;
         }},
        {"journal", [](P& p, const S& k, const N& n) { p.recipe_.journal = p.resolve(p.string(k, n)); }},
        {"isolate",
         [](P& p, const S& k, const N& n) {
           const auto mode = p.string(k, n);
           if (mode != "none" && mode != "graph" && mode != "row")
             p.fail(n, k, fmt::format("expected \"none\", \"graph\" or \"row\", got \"{}\"", mode));
           p.recipe_.isolate = mode;
         }},
        {"timeout_s",
         [](P& p, const S& k, const N& n) { p.recipe_.timeout_s = p.number(k, n, 0, 1e300, true); }},
        {"verbose", [](P& p, const S& k, const N& n) { p.recipe_.verbose = p.boolean(k, n); }},
        {"quiet", [](P& p, const S& k, const N& n) { p.recipe_.quiet = p.boolean(k, n); }},
        {"dry_run", [](P& p, const S& k, const N& n) { p.recipe_.dry_run = p.boolean(k, n); }},
    };
    return table;
  }

  fs::path source_;
  Recipe recipe_;
};

}  // namespace

Recipe parse_recipe(std::string_view text, const fs::path& source) {
  return RecipeParser(source).parse(text);
}

Recipe read_recipe(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw RecipeError(fmt::format("{}: is a folder; expected a recipe file", path.string()));
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw RecipeError(fmt::format("{}: cannot open the recipe: {}", path.string(), std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_recipe(text.str(), path);
}

void apply_recipe(const Recipe& r, RunCommand& c, const CLI::App& app) {
  // The command line wins: a recipe value is taken only for an option the command line did not give.
  const auto from_recipe = [&](const char* option) { return app.count(option) == 0; };
  auto take = [&](const char* option, const auto& value, auto& target) {
    if (value && from_recipe(option)) target = *value;
  };
  take("--graph", r.graphs, c.graphs);
  take("--provider", r.providers, c.providers);
  take("--skip-engine", r.skip_engines, c.skip_engines);
  take("--op", r.ops, c.ops);
  take("--warmup", r.warmup, c.options.warmup);
  take("--iters", r.iters, c.iters);
  take("--min-iters", r.min_iters, c.options.adaptive.min_iters);
  take("--max-iters", r.max_iters, c.options.adaptive.max_iters);
  take("--target-ci", r.target_ci, c.options.adaptive.target_ci_rel);
  take("--min-time-ms", r.min_time_ms, c.options.adaptive.min_time_ms);
  take("--max-time-ms", r.max_time_ms, c.options.adaptive.max_time_ms);
  if (r.seed && from_recipe("--seed")) c.options.seed = static_cast<std::uint64_t>(*r.seed);
  take("--output", r.output, c.output);
  take("--rtol", r.rtol, c.rtol);
  take("--atol", r.atol, c.atol);
  take("--dump-tensors", r.dump_tensors, c.dump_tensors);
  take("--save-samples", r.save_samples, c.options.save_samples);
  take("--max-graph-bytes", r.max_graph_bytes, c.options.limits.max_graph_bytes);
  take("--max-memory", r.max_memory, c.max_memory);
  if (r.max_archive_entry_bytes && from_recipe("--max-archive-entry-bytes"))
    c.options.archive.max_entry_bytes = static_cast<std::uint64_t>(*r.max_archive_entry_bytes);
  if (r.max_archive_bytes && from_recipe("--max-archive-bytes"))
    c.options.archive.max_total_bytes = static_cast<std::uint64_t>(*r.max_archive_bytes);
  take("--progress", r.progress, c.progress);
  take("--journal", r.journal, c.journal);
  take("--isolate", r.isolate, c.isolate);
  take("--timeout-s", r.timeout_s, c.timeout_s);
  take("--verbose", r.verbose, c.verbose);
  take("--quiet", r.quiet, c.quiet);
  take("--dry-run", r.dry_run, c.dry_run);
  // --engine replaces the recipe's engine list and its matrix alike.
  if (from_recipe("--engine")) {
    if (r.engines) c.engines = *r.engines;
    c.options.engine_matrix = r.engine_matrix;
  }
  c.options.recipe_path = r.path.string();
}

}  // namespace dnnbench
