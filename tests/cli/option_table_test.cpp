// The run option table is the one source of the command line, the recipe keys, --help and the
// docs: every flag has a recipe key, both set the same thing, and the docs match the table.
#include "cli/option_table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "cli/calibrate_command.hpp"
#include "cli/commands.hpp"
#include "cli/option_binder.hpp"
#include "cli/recipe.hpp"

namespace dnnbench {
namespace {

std::string source_file(const std::string& relative) {
  return std::string(DNNBENCH_SOURCE_DIR) + "/" + relative;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every field an option's setter may touch, printed, so that two RunCommands can be compared.
std::string state(const RunCommand& c) {
  const auto& o = c.options;
  const auto opt = [](const auto& v) { return v ? fmt::format("{}", *v) : std::string("-"); };
  return fmt::format(
      "graphs={} providers={} engines={} skip={} ops={} output={} verbose={} quiet={} progress={} dry={} "
      "journal={} resume={} isolate={} timeout={} | warmup={} iters={} target={} min_iters={} max_iters={} "
      "min_ms={} max_ms={} cache={} latency={} idle={} batch={} split={} steady_ms={} clock_tol={} seed={} "
      "rtol={} atol={} dump={} samples={} max_graph={} max_memory={} oracle={} aa={} plans={} secs={} "
      "effect={} max_engines={} entry={} total={} heur={} gpu_ref={} calibration={} fill={} fp32_math={} "
      "replay={} kernels={} groups={} keep_warm={} regime={} other_regime={} capped_ms={} "
      "uncapped_batch_ms={} "
      "placements={} "
      "reduced={} "
      "oracle_regimes={} csv={} "
      "dims={} shard={} "
      "mixed={} shared={} rank_timeout={} "
      "export_plans={} "
      "plans_from={} profile={} profile_dir={} compile_ahead={} repeat={}",
      c.graphs, c.providers, c.engines, c.skip_engines, c.ops, c.output, c.verbose, c.quiet, c.progress,
      c.dry_run, c.journal, c.resume, c.isolate, c.timeout_s, o.warmup, opt(o.iters),
      o.adaptive.target_ci_rel, o.adaptive.min_iters, o.adaptive.max_iters, o.adaptive.min_time_ms,
      o.adaptive.max_time_ms, cache_mode_name(o.measure.cache_mode), o.measure.latency,
      o.measure.latency_idle_ms, opt(o.measure.batch), o.measure.per_execution_events,
      o.measure.steady.max_ms, o.measure.clock_tolerance, o.seed, opt(o.rtol), opt(o.atol),
      opt(o.dump_tensors_dir), o.save_samples, o.limits.max_graph_bytes, opt(o.max_memory), o.oracle.enabled,
      o.oracle.aa_self_check, o.oracle.max_plans, o.oracle.max_seconds, o.oracle.min_effect, o.max_engines,
      o.archive.max_entry_bytes, o.archive.max_total_bytes, opt(o.provider_settings.cudnn_heur_mode),
      o.gpu_reference, opt(o.calibration_file), fill_kind_name(o.fill), fp32_math_name(o.fp32_math),
      o.measure.graph_replay, o.measure.kernel_activity, o.group_rows, o.keep_warm,
      regime_name(o.measure.regime), o.measure.other_regime_samples, o.measure.capped_min_ms,
      o.measure.uncapped_batch_ms, o.measure.placements, reduced_precision_name(o.reduced_precision),
      o.oracle.both_regimes, c.csv, c.dims, c.shard, c.allow_mixed_ranks, c.allow_shared_device,
      c.rank_timeout_s, c.export_plans, c.plans_from, c.profile, c.profile_dir, c.compile_ahead, o.repeat);
}

// A value of the option's kind that differs from its default: as command-line arguments and as a
// recipe line.
struct Sample {
  std::vector<std::string> args;
  std::string toml;
};

Sample sample_for(const RunOptionSpec& spec) {
  const auto flag = spec.long_name();
  const auto line = [&](const std::string& value) { return spec.key + " = " + value + "\n"; };
  switch (spec.kind) {
    case OptionKind::flag:
      return {{flag}, line("true")};
    case OptionKind::integer: {
      const std::string value = spec.default_text == "7" ? "9" : "7";  // not the default
      return {{flag, value}, line(value)};
    }
    case OptionKind::seed:
      return {{flag, "12345"}, line("12345")};
    case OptionKind::number:
      return {{flag, "0.5"}, line("0.5")};
    case OptionKind::bytes:
      return {{flag, "3GiB"}, line("\"3GiB\"")};
    case OptionKind::text:
    case OptionKind::path:
      return {{flag, "/abs/p"}, line("\"/abs/p\"")};
    case OptionKind::choice:
      return {{flag, spec.choices.back()}, line("\"" + spec.choices.back() + "\"")};
    case OptionKind::list:
    case OptionKind::path_list:
      return {{flag, "/a,/b"}, line("[\"/a\", \"/b\"]")};
  }
  return {};
}

// Parses `args` as `dnnbench run ARGS`, applies the recipe text (none: empty) and returns the
// resolved command's state.
std::string resolve(const std::vector<std::string>& args, const std::string& recipe_text) {
  CLI::App app("test", "dnnbench");
  RunCommand c;
  add_run_options(*app.add_subcommand("run"), c);
  std::vector<std::string> argv = {"dnnbench", "run"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> pointers;
  for (auto& a : argv) pointers.push_back(a.data());
  app.parse(static_cast<int>(pointers.size()), pointers.data());
  std::optional<Recipe> recipe;
  if (!recipe_text.empty()) recipe = parse_recipe("version = 1\n" + recipe_text, "r.toml");
  c.binder->apply(c, recipe ? &*recipe : nullptr);
  return state(c);
}

TEST(OptionTable, KeysAndFlagsAreUniqueAndKeysFollowTheFlagNames) {
  std::set<std::string> keys, flags;
  for (const auto& spec : run_option_table()) {
    EXPECT_TRUE(keys.insert(spec.key).second) << spec.key;
    EXPECT_TRUE(flags.insert(spec.long_name()).second) << spec.long_name();
    // The recipe key is the flag's name with `_` for `-`, plural for lists.
    auto name = spec.long_name().substr(2);
    std::replace(name.begin(), name.end(), '-', '_');
    EXPECT_EQ(spec.key, spec.is_list() ? name + "s" : name) << spec.flags;
    EXPECT_FALSE(spec.help.empty()) << spec.flags;
    EXPECT_TRUE(spec.set) << spec.flags;
    EXPECT_EQ(spec.kind == OptionKind::choice, !spec.choices.empty()) << spec.flags;
  }
}

TEST(OptionTable, EveryFlagOfRunHasARecipeKeyAndViceVersa) {
  CLI::App app("test", "dnnbench");
  RunCommand c;
  auto* run = app.add_subcommand("run");
  add_run_options(*run, c);
  std::set<std::string> exempt = {"--help", "--config"};  // --config is the recipe itself
  std::size_t user_flags = 0;
  for (const auto* option : run->get_options()) {
    const auto name = option->get_name();
    if (exempt.contains(name) || option->get_group().empty()) continue;  // hidden: isolated children
    ++user_flags;
    const auto found = std::find_if(run_option_table().begin(), run_option_table().end(),
                                    [&](const RunOptionSpec& spec) { return spec.long_name() == name; });
    ASSERT_NE(found, run_option_table().end()) << name << " has no recipe key (add it to the option table)";
  }
  EXPECT_EQ(user_flags, run_option_table().size());  // and every key of the table is a flag of `run`
}

TEST(OptionTable, EveryOptionSetsTheSameThingFromTheCommandLineAndFromARecipe) {
  const auto defaults = resolve({}, "");
  for (const auto& spec : run_option_table()) {
    const auto sample = sample_for(spec);
    const auto from_flags = resolve(sample.args, "");
    const auto from_recipe = resolve({}, sample.toml);
    EXPECT_NE(from_flags, defaults) << spec.flags << " changes nothing";
    EXPECT_EQ(from_flags, from_recipe) << spec.flags << " and recipe key " << spec.key << " disagree";
  }
}

TEST(OptionTable, TheCommandLineOverridesTheRecipeOptionByOption) {
  EXPECT_EQ(resolve({"--warmup", "2"}, "warmup = 9\nseed = 5\n"),
            resolve({"--warmup", "2", "--seed", "5"}, ""));
}

TEST(OptionValues, ClearReasonsForBadValues) {
  const auto reason = [](const std::string& key, const std::string& text) {
    try {
      parse_option_text(*find_run_option_by_key(key), text);
    } catch (const OptionValueError& e) {
      return e.reason;
    }
    return std::string();
  };
  EXPECT_EQ(reason("iters", "0"), "must be >= 1, got 0");
  EXPECT_EQ(reason("iters", "abc"), "expected an integer, got \"abc\"");
  EXPECT_EQ(reason("iters", "2.5"), "expected an integer, got \"2.5\"");
  EXPECT_EQ(reason("iters", "99999999999999999999"), "99999999999999999999 is out of range");
  EXPECT_EQ(reason("seed", "-1"), "must be >= 0, got -1");
  EXPECT_EQ(reason("capped_min_ms", "-1"), "must be >= 0, got -1");
  EXPECT_EQ(reason("uncapped_batch_ms", "20"), "must be in [0, 10], got 20");
  EXPECT_EQ(reason("placements", "0"), "must be in [1, 10], got 0");
  EXPECT_EQ(reason("placements", "11"), "must be in [1, 10], got 11");
  EXPECT_EQ(reason("seed", "18446744073709551616"),
            "must be below 2^64 (at most 18446744073709551615), got 18446744073709551616");
  EXPECT_EQ(reason("seed", "18446744073709551615"), "");
  EXPECT_EQ(reason("target_ci", "2"), "must be in [1e-06, 1], got 2");
  EXPECT_EQ(reason("max_time_ms", "0"), "must be > 0, got 0");
  // An integer option bounded only by its type names no maximum.
  EXPECT_EQ(reason("oracle_max_plans", "0"), "must be >= 1, got 0");
  EXPECT_EQ(reason("warmup_max_ms", "nan"), "expected a number, got \"nan\"");
  EXPECT_EQ(reason("cache_mode", "COLD"), "");
  EXPECT_EQ(reason("cache_mode", "warm"),
            "expected \"auto\", \"hot\", \"cold\", \"rotating\" or \"producer\", got \"warm\"");
  EXPECT_NE(reason("max_memory", "16 apples").find("expected a byte count"), std::string::npos);
}

TEST(OptionValues, ByteCountsTakeUnitsInPowersOf1024) {
  EXPECT_EQ(parse_byte_count("1000000"), 1000000);
  EXPECT_EQ(parse_byte_count("16GiB"), std::int64_t{16} << 30);
  EXPECT_EQ(parse_byte_count("16GB"), std::int64_t{16} << 30);
  EXPECT_EQ(parse_byte_count("512M"), std::int64_t{512} << 20);
  EXPECT_EQ(parse_byte_count("4 kib"), 4096);
  EXPECT_EQ(parse_byte_count("1.5G"), std::int64_t{3} << 29);
  EXPECT_THROW(parse_byte_count("G"), OptionValueError);
  EXPECT_THROW(parse_byte_count("-1G"), OptionValueError);
  EXPECT_THROW(parse_byte_count("99999999PiB"), OptionValueError);
  EXPECT_EQ(format_byte_count(std::int64_t{8} << 30), "8GiB");
  EXPECT_EQ(format_byte_count(1000), "1000");
}

TEST(OptionConflicts, ContradictoryBoundsAreUsageErrors) {
  const auto conflict = [](const std::vector<std::string>& args) {
    CLI::App app("test", "dnnbench");
    RunCommand c;
    add_run_options(*app.add_subcommand("run"), c);
    std::vector<std::string> argv = {"dnnbench", "run"};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> pointers;
    for (auto& a : argv) pointers.push_back(a.data());
    app.parse(static_cast<int>(pointers.size()), pointers.data());
    const auto given = c.binder->apply(c, nullptr);
    try {
      check_option_conflicts(c, given);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(conflict({"--min-time-ms", "1000", "--max-time-ms", "10"})
                .find("--min-time-ms (1000) is above --max-time-ms (10)"),
            std::string::npos);
  EXPECT_NE(
      conflict({"--min-iters", "50", "--max-iters", "5"}).find("--min-iters (50) is above --max-iters (5)"),
      std::string::npos);
  EXPECT_NE(
      conflict({"--min-iters", "5000"}).find("--min-iters (5000) is above --max-iters (2000, its default)"),
      std::string::npos);
  // A default minimum yields to the user's maximum.
  EXPECT_EQ(conflict({"--max-iters", "5"}), "");
  EXPECT_EQ(conflict({"--max-time-ms", "10"}), "");
  EXPECT_NE(conflict({"-v", "-q"}).find("contradict"), std::string::npos);
  EXPECT_EQ(conflict({"--min-time-ms", "10", "--max-time-ms", "10", "-v"}), "");
}

// --help of every command: the table's defaults, none of CLI11's type and validator annotations.
TEST(OptionHelp, ShowsDefaultsAndNoCli11Artefacts) {
  CLI::App app("test", "dnnbench");
  RunCommand run;
  add_run_options(*app.add_subcommand("run"), run);
  ListEnginesCommand list;
  add_list_engines_options(*app.add_subcommand("list-engines"), list);
  CalibrateCommand calibrate;
  add_calibrate_options(*app.add_subcommand("calibrate"), calibrate);
  for (const auto* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    const auto help = sub->help("dnnbench");
    for (const std::string artefact : {"{false}", "ENUM", "TEXT", "INT", "FLOAT", "UINT", " in {", "->", ":{",
                                       "POSITIVE", "SIZE", "[b, kb"})
      EXPECT_EQ(help.find(artefact), std::string::npos) << sub->get_name() << ": " << artefact << "\n"
                                                        << help;
  }
  const auto help = app.get_subcommand("run")->help("dnnbench");
  for (const auto& spec : run_option_table()) {
    if (spec.default_text.empty()) continue;
    EXPECT_NE(help.find("(default: " + spec.default_text + ")"), std::string::npos) << spec.flags;
  }
  EXPECT_NE(help.find("--warmup N"), std::string::npos) << help;
  EXPECT_NE(help.find("--cache-mode auto|hot|cold"), std::string::npos) << help;
}

// docs/recipes.md's key table is generated from the option table; DNNBENCH_UPDATE_DOCS=1 rewrites it.
TEST(OptionDocs, RecipeKeyTableMatchesTheOptionTable) {
  const auto path = source_file("docs/recipes.md");
  auto doc = read_text(path);
  const std::string begin = "<!-- begin recipe keys: generated from src/cli/option_table.cpp -->\n";
  const std::string end = "<!-- end recipe keys -->";
  const auto from = doc.find(begin), to = doc.find(end);
  ASSERT_NE(from, std::string::npos) << path << " has lost its marker: " << begin;
  ASSERT_NE(to, std::string::npos) << path << " has lost its marker: " << end;
  const auto current = doc.substr(from + begin.size(), to - from - begin.size());
  const auto wanted = recipe_key_table_markdown();
  if (current != wanted && std::getenv("DNNBENCH_UPDATE_DOCS")) {
    doc.replace(from + begin.size(), current.size(), wanted);
    std::ofstream(path) << doc;
    GTEST_SKIP() << "rewrote " << path;
  }
  EXPECT_EQ(current, wanted) << path
                             << " differs from the option table; regenerate it with DNNBENCH_UPDATE_DOCS=1 "
                                "dnnbench_unit_tests --gtest_filter='OptionDocs.*'";
}

// README's table of `run` options names every flag, and no flag that does not exist.
TEST(OptionDocs, ReadmeOptionTableNamesEveryFlag) {
  const auto readme = read_text(source_file("README.md"));
  const auto start = readme.find("Options of `run`");
  ASSERT_NE(start, std::string::npos);
  const auto table_end = readme.find("\n\n", readme.find("| --- |", start));
  const auto table = readme.substr(start, table_end - start);
  std::set<std::string> documented;
  std::istringstream lines(table);
  for (std::string row; std::getline(lines, row);) {
    if (row.rfind("| `", 0) != 0) continue;
    const auto first_cell = row.substr(0, row.find(" | ", 2));
    const std::regex flag("(--?[a-z][a-z0-9-]*)");
    for (std::sregex_iterator it(first_cell.begin(), first_cell.end(), flag), none; it != none; ++it)
      documented.insert((*it)[1]);
  }
  std::set<std::string> real = {"--config"};
  for (const auto& spec : run_option_table()) {
    std::istringstream names(spec.flags);
    for (std::string name; std::getline(names, name, ',');) real.insert(name);
    EXPECT_TRUE(documented.contains(spec.long_name()))
        << spec.long_name() << " is missing from README's table";
  }
  for (const auto& name : documented)
    EXPECT_TRUE(real.contains(name)) << name << " in README is no run option";
}

}  // namespace
}  // namespace dnnbench
