#include "cli/recipe.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include <toml++/toml.h>

#include "graph/errors.hpp"

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

// " (did you mean 'warmup'?)" for the known key closest to a misspelt one (graph/errors.hpp's
// rule, shared with the graph reader's suggestions); empty when none is close.
std::string suggestion(const std::string& key) {
  std::vector<std::string_view> keys;
  for (const auto& spec : run_option_table()) keys.push_back(spec.key);
  const auto best = closest_match(key, keys);
  return best.empty() ? "" : fmt::format(" (did you mean '{}'?)", best);
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
      if (name == "engines" && node.is_array_of_tables()) {
        engine_matrix(node);
        continue;
      }
      const auto* spec = find_run_option_by_key(name);
      if (!spec)
        throw RecipeError(fmt::format("{}: unknown key '{}'{} (docs/recipes.md lists the keys)",
                                      where(key.source()), name, suggestion(name)));
      recipe_.values[name] = option_value(*spec, node);
    }
    return std::move(recipe_);
  }

 private:
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

  // `engines` may also be the engine matrix: an array of tables with provider, id and a label.
  void engine_matrix(const toml::node& node) {
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
        fail(item, "engines",
             fmt::format("an [[engines]] entry needs `{}`", has_provider ? "id" : "provider"));
      recipe_.engine_matrix.push_back(std::move(choice));
    }
  }

  // One option of the table: the node's type must fit the option's kind, its value the range.
  OptionValue option_value(const RunOptionSpec& spec, const toml::node& node) const {
    const auto& key = spec.key;
    try {
      switch (spec.kind) {
        case OptionKind::flag:
          return boolean(key, node);
        case OptionKind::integer: {
          expect(node, key, node.is_integer(), "an integer");
          const auto value = *node.value<std::int64_t>();
          check_option_range(spec, static_cast<double>(value), std::to_string(value));
          return value;
        }
        case OptionKind::seed: {
          expect(node, key, node.is_integer(), "an integer");
          const auto value = *node.value<std::int64_t>();
          if (value < 0) fail(node, key, fmt::format("must be >= 0, got {}", value));
          return static_cast<std::uint64_t>(value);
        }
        case OptionKind::number: {
          expect(node, key, node.is_integer() || node.is_floating_point(), "a number");
          const double value = *node.value<double>();
          check_option_range(spec, value, fmt::format("{}", value));
          return value;
        }
        case OptionKind::bytes: {
          expect(node, key, node.is_integer() || node.is_string(),
                 "a byte count (an integer, or a string such as \"16GiB\")");
          const auto value =
              node.is_integer() ? *node.value<std::int64_t>() : parse_byte_count(string(key, node));
          check_option_range(spec, static_cast<double>(value),
                             node.is_integer() ? std::to_string(value) : describe(node));
          return value;
        }
        case OptionKind::text:
          return string(key, node);
        case OptionKind::path:
          return resolve(string(key, node));
        case OptionKind::choice:
          return canonical_choice(spec, string(key, node));
        case OptionKind::list:
          return strings(key, node);
        case OptionKind::path_list: {
          auto list = strings(key, node);
          for (auto& path : list) path = resolve(path);
          return list;
        }
      }
    } catch (const OptionValueError& e) {
      fail(node, key, e.reason);
    }
    fail(node, key, "unsupported option kind");
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

}  // namespace dnnbench
