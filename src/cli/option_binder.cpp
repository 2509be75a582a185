#include "cli/option_binder.hpp"

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/recipe.hpp"

namespace dnnbench {
namespace {

std::string value_name(const RunOptionSpec& spec) {
  if (spec.kind != OptionKind::choice) return spec.value_name;
  std::string name;
  for (const auto& choice : spec.choices) name += (name.empty() ? "" : "|") + choice;
  return name;
}

}  // namespace

RunOptionBinder::RunOptionBinder(CLI::App& app, const Filter& keep) {
  for (const auto& spec : run_option_table()) {
    if (keep && !keep(spec)) continue;
    auto slot = std::make_unique<Slot>();
    slot->spec = &spec;
    const auto help = option_help(spec);
    if (spec.kind == OptionKind::flag) {
      slot->option = app.add_flag(spec.flags, help);
    } else if (spec.is_list()) {
      slot->option = app.add_option(spec.flags, slot->list, help)->delimiter(',');
    } else {
      // The last of repeated values wins, as in most command lines (a script's later flag
      // overrides an earlier one).
      slot->option =
          app.add_option(spec.flags, slot->text, help)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    }
    if (spec.takes_value()) slot->option->type_name(value_name(spec));
    slot->option->group(spec.group);
    slots_.push_back(std::move(slot));
  }
}

bool RunOptionBinder::given(std::string_view key) const {
  for (const auto& slot : slots_)
    if (slot->spec->key == key) return slot->option->count() > 0;
  return false;
}

OptionValue RunOptionBinder::command_line_value(const Slot& slot) const {
  const auto& spec = *slot.spec;
  if (spec.kind == OptionKind::flag) return true;
  if (spec.is_list()) return slot.list;
  try {
    return parse_option_text(spec, slot.text);
  } catch (const OptionValueError& e) {
    throw UsageError(fmt::format("{}: {}", spec.long_name(), e.reason));
  }
}

OptionKeys RunOptionBinder::apply(RunCommand& command, const Recipe* recipe) const {
  OptionKeys set;
  for (const auto& slot : slots_) {
    const auto& spec = *slot->spec;
    if (slot->option->count() > 0) {
      spec.set(command, command_line_value(*slot));
      set.insert(spec.key);
    } else if (recipe) {
      if (const auto found = recipe->values.find(spec.key); found != recipe->values.end()) {
        spec.set(command, found->second);
        set.insert(spec.key);
      }
    }
  }
  if (!recipe) return set;
  // --engine replaces the recipe's engine list and its matrix alike.
  if (!given("engines")) command.options.engine_matrix = recipe->engine_matrix;
  command.options.recipe_path = recipe->path.string();
  return set;
}

namespace {

// A minimum above its maximum: refused when the user set the minimum; a default minimum is
// lowered to the user's maximum instead.
template <class T>
void check_bounds(T& min, const T& max, const OptionKeys& given, const char* min_key, const char* max_key) {
  if (min <= max) return;
  const auto* min_spec = find_run_option_by_key(min_key);
  const auto* max_spec = find_run_option_by_key(max_key);
  if (!given.contains(min_key)) {
    min = max;
    return;
  }
  throw UsageError(
      fmt::format("{} ({}) is above {} ({}{}): the adaptive rule could never meet both; lower "
                  "the first or raise the second",
                  min_spec->long_name(), min, max_spec->long_name(), max,
                  given.contains(max_key) ? "" : ", its default"));
}

}  // namespace

void check_option_conflicts(RunCommand& c, const OptionKeys& given) {
  auto& a = c.options.adaptive;
  check_bounds(a.min_time_ms, a.max_time_ms, given, "min_time_ms", "max_time_ms");
  check_bounds(a.min_iters, a.max_iters, given, "min_iters", "max_iters");
  if (c.verbose && c.quiet)
    throw UsageError("-v (--verbose) and -q (--quiet) contradict each other: give one of them");
}

}  // namespace dnnbench
