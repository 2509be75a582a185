// Options through the real binary: usage errors are one line and exit 2, recipes take every
// option the command line takes, the warm-up cap holds in every mode, help and version.
#include <gtest/gtest.h>

#include <algorithm>

#include "cli_runner.hpp"

namespace dnnbench::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kGraph = "graphs/samples/matmul_plain_fp32.json";

std::string joined(const std::vector<std::string>& args) {
  std::string text;
  for (const auto& a : args) text += a + " ";
  return text;
}

std::size_t lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST(UsageErrors, BadAndContradictoryValuesAreOneLineAndExitTwo) {
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {{"--iters", "0"}, "dnnbench: --iters: must be >= 1, got 0"},
      {{"--iters", "abc"}, "dnnbench: --iters: expected an integer, got \"abc\""},
      {{"--min-time-ms", "1000", "--max-time-ms", "10"}, "--min-time-ms (1000) is above --max-time-ms (10)"},
      {{"--min-iters", "50", "--max-iters", "5"}, "--min-iters (50) is above --max-iters (5)"},
      {{"-v", "-q"}, "-v (--verbose) and -q (--quiet) contradict each other"},
      {{"--seed", "-1"}, "dnnbench: --seed: must be >= 0, got -1"},
      {{"--compile-ahead", "-1"}, "dnnbench: --compile-ahead: must be >= 0, got -1"},
      {{"--compile-ahead", "many"}, "dnnbench: --compile-ahead: expected an integer, got \"many\""},
      {{"--seed", "18446744073709551616"}, "--seed: must be below 2^64"},
      {{"--max-memory", "lots"}, "--max-memory: expected a byte count"},
      {{"--cache-mode", "warm"},
       "--cache-mode: expected \"auto\", \"hot\", \"cold\", \"rotating\" or \"producer\", got \"warm\""},
      {{"--regime", "hot"}, "--regime: expected \"sustained\" or \"paced\", got \"hot\""},
      {{"--fill", "gaussian"}, "--fill: expected"},
      {{"--reduced-precision", "maybe"},
       "--reduced-precision: expected \"allow\" or \"skip\", got \"maybe\""},
      {{"--oracle-regimes", "all"}, "--oracle-regimes: expected \"one\" or \"both\", got \"all\""},
      {{"--other-regime-samples", "-1"}, "--other-regime-samples: must be >= 0, got -1"},
      {{"--no-such-flag"}, "dnnbench: The following argument was not expected: --no-such-flag"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"run", "-g", source_path(kGraph)};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto r = run_cli(args);
    const auto shown = joined(c.args);
    EXPECT_EQ(r.exit_code, 2) << shown << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << shown << " -> " << r.err;
    EXPECT_EQ(lines(r.err), 1u) << shown << " -> " << r.err;
    EXPECT_EQ(r.err.find("179769313486231570814527"), std::string::npos) << r.err;
  }
}

TEST(UsageErrors, CalibrateRepeatsSaysWhatIsWanted) {
  for (const auto* value : {"1", "abc"}) {
    const auto r = run_cli({"calibrate", "--repeats", value});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(std::string("--repeats: expected an integer from 2 to 1000, got \"") + value + "\""),
              std::string::npos)
        << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
  }
}

TEST(UsageErrors, ContradictionsInARecipeAreRefusedToo) {
  TempDir dir;
  const auto recipe = dir / "r.toml";
  std::ofstream(recipe) << "version = 1\ngraphs = [\"" << source_path(kGraph)
                        << "\"]\nmin_time_ms = 1000\nmax_time_ms = 10\n";
  const auto r = run_cli({"run", "--config", recipe.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--min-time-ms (1000) is above --max-time-ms (10)"), std::string::npos) << r.err;
}

TEST(Recipes, TakeTheOptionsTheyUsedToRefuseAndByteUnits) {
  TempDir dir;
  const auto recipe = dir / "r.toml";
  const auto out = dir / "r.json";
  std::ofstream(recipe) << "version = 1\ngraphs = [\"" << source_path(kGraph) << "\"]\n"
                        << R"(oracle = true
oracle_max_plans = 2
oracle_max_seconds = 2
oracle_min_effect = 0.05
max_engines = 1
cache_mode = "cold"
latency = true
batch = 1
heur_mode = "b"
cpu_reference = true
warmup = 0
warmup_max_ms = 0
iters = 3
calibration_file = "absent-calibration.json"
max_memory = "16GiB"
quiet = true
)";
  const auto r = run_cli({"run", "--config", recipe.string(), "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto doc = json::parse(read_text(out));
  const auto& o = doc["metadata"]["options"];
  EXPECT_EQ(o["oracle"]["enabled"], true);
  EXPECT_EQ(o["oracle"]["max_plans"], 2);
  EXPECT_EQ(o["oracle"]["min_effect"], 0.05);
  EXPECT_EQ(o["max_engines"], 1);
  EXPECT_EQ(o["cache_mode"], "cold");
  EXPECT_EQ(o["latency"], true);
  EXPECT_EQ(o["batch"], 1);
  EXPECT_EQ(o["heur_mode"], "b");
  EXPECT_EQ(o["gpu_reference"], false);
  EXPECT_EQ(o["warmup_max_ms"], 0.0);
  EXPECT_EQ(o["max_memory"], std::int64_t{16} << 30);
  ASSERT_EQ(doc["graphs"].size(), 1u);
  EXPECT_EQ(doc["graphs"][0]["results"].size(), 1u);  // max_engines = 1
  // The calibration file resolves against the recipe's folder; its absence is a warning.
  EXPECT_NE(r.err.find("--calibration-file " + (dir / "absent-calibration.json").string() + ": no such file"),
            std::string::npos)
      << r.err;
}

TEST(Options, OracleMinEffectIsAccepted) {
  TempDir dir;
  const auto out = dir / "r.json";
  const auto r = run_cli(run_args({"-g", source_path(kGraph), "--oracle-min-effect", "0.03", "--max-engines",
                                   "1", "-q", "-o", out.string()}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(read_text(out))["metadata"]["options"]["oracle"]["min_effect"], 0.03);
}

TEST(Options, MaxMemoryTakesUnitsOnTheCommandLine) {
  TempDir dir;
  const auto out = dir / "r.json";
  const auto r = run_cli(run_args(
      {"-g", source_path(kGraph), "--max-memory", "16GiB", "--max-engines", "1", "-q", "-o", out.string()}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(read_text(out))["metadata"]["options"]["max_memory"], std::int64_t{16} << 30);
}

// The steady-state warm-up's cap is wall time in every mode. A latency sample idles 25 ms, but
// its execution takes microseconds: counting only the timed executions, the search would run
// 15 samples (three windows of five) or more, 375+ ms, against a 100 ms cap.
TEST(WarmupCap, HoldsInLatencyAndColdCacheModes) {
  for (const std::vector<std::string>& mode :
       {std::vector<std::string>{"--latency", "--latency-idle-ms", "25"},
        std::vector<std::string>{"--cache-mode", "cold"}}) {
    TempDir dir;
    const auto out = dir / "r.json";
    std::vector<std::string> args = {"run",
                                     "-g",
                                     source_path(kGraph),
                                     "--warmup",
                                     "0",
                                     "--warmup-max-ms",
                                     "100",
                                     "--iters",
                                     "2",
                                     "--max-engines",
                                     "2",
                                     "-q",
                                     "-o",
                                     out.string()};
    args.insert(args.end(), mode.begin(), mode.end());
    const auto r = run_cli(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto doc = json::parse(read_text(out));
    for (const auto& row : doc["graphs"][0]["results"]) {
      ASSERT_EQ(row["status"], "success") << row.dump();
      // The cap, plus slack for a sample that ran longer than the one before it on a busy machine.
      EXPECT_LE(row["timing"]["warmup_ms"].get<double>(), 200.0) << mode[0] << " " << row["timing"].dump();
    }
  }
}

TEST(Calibration, AMissingOrCorruptFileIsAWarning) {
  TempDir dir;
  const auto corrupt = dir / "corrupt.json";
  std::ofstream(corrupt) << "{ not json";
  const auto foreign = dir / "foreign.json";
  std::ofstream(foreign) << R"({"hello": 1})";
  struct Case {
    fs::path file;
    std::string expected;
  };
  for (const auto& c : {Case{dir / "missing.json", "no such file"}, Case{corrupt, "not valid JSON"},
                        Case{foreign, "not a `dnnbench calibrate` file"}}) {
    const auto out = dir / "r.json";
    const auto r = run_cli(run_args({"-g", source_path(kGraph), "--max-engines", "1", "--calibration-file",
                                     c.file.string(), "-q", "-o", out.string()}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("dnnbench: warning: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << r.err;
    const auto doc = json::parse(read_text(out));
    EXPECT_TRUE(doc["metadata"]["noise_floor"].is_null());
    EXPECT_NE(doc["metadata"]["warnings"].dump().find(c.expected), std::string::npos);
  }
}

TEST(CliBasics, VersionAndHelp) {
  auto r = run_cli({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("dnnbench ", 0), 0u) << r.out;

  r = run_cli({"help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const auto* command : {"run", "list-engines", "calibrate", "list-providers", "help"})
    EXPECT_NE(r.out.find(command), std::string::npos) << r.out;

  r = run_cli({"help", "run"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Usage: dnnbench run"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--oracle-min-effect X"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(default: 3)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out, run_cli({"run", "--help"}).out);
  for (const auto* artefact : {"{false}", "ENUM", "INT:", "FLOAT:", "TEXT"})
    EXPECT_EQ(r.out.find(artefact), std::string::npos) << artefact;

  r = run_cli({"help", "calibrate"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("--repeats N"), std::string::npos) << r.out;

  r = run_cli({"help", "nosuch"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no command 'nosuch'; the commands are run, list-engines"), std::string::npos)
      << r.err;

  r = run_cli({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("dnnbench help"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace dnnbench::testing
