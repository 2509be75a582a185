// Integration tests of the measurement method: cache modes, latency, forced batches, and
// `dnnbench calibrate` with its noise floor recorded by later runs.
#include <gtest/gtest.h>

#include "cli_runner.hpp"

namespace dnnbench::testing {
namespace {

using nlohmann::json;

const std::string kConv = "graphs/samples/conv_fwd_2d_nhwc_fp32.json";

json run_one(std::vector<std::string> flags, const TempDir& dir) {
  const auto out = (dir / "r.json").string();
  std::vector<std::string> args = {"run", "-q", "-g", source_path(kConv), "--provider", "onednn", "-o", out};
  for (const auto& a : quick_timing()) args.push_back(a);
  args.insert(args.end(), flags.begin(), flags.end());
  const auto r = run_cli(args);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  return json::parse(read_text(out));
}

// Every successful row of `doc` timed single executions, each after an LLC flush whose
// description holds `flush_text`; `check` adds what else a row must show.
template <class Check>
void expect_flushed_single_executions(const json& doc, const std::string& flush_text, Check check) {
  const auto& rows = doc["graphs"][0]["results"];
  ASSERT_FALSE(rows.empty());
  for (const auto& row : rows) {
    if (row["status"] != "success") continue;
    const auto& t = row["timing"];
    EXPECT_EQ(t["cache_mode"], "cold");
    EXPECT_EQ(t["batch"], 1);
    EXPECT_NE(t["method"].get<std::string>().find("+cold-flush"), std::string::npos) << t["method"];
    EXPECT_NE(t["cache_flush"].get<std::string>().find(flush_text), std::string::npos) << t["cache_flush"];
    check(t);
  }
}

TEST(Measurement, ColdRowsFlushTheLlcBeforeEverySingleExecution) {
  TempDir dir;
  const auto doc = run_one({"--cache-mode", "cold"}, dir);
  EXPECT_EQ(doc["metadata"]["options"]["cache_mode"], "cold");
  expect_flushed_single_executions(doc, "LLC", [](const json& t) {
    EXPECT_TRUE(t["clocks"].is_null());  // a host provider has no GPU sensors
  });
}

// --cache-mode rotating is for device providers (their executions rebind cheaply); a CPU row,
// whose binding reorders, flushes its LLC as cold does and says why.
TEST(Measurement, RotatingOnTheCpuFlushesTheLlcAndSaysWhy) {
  TempDir dir;
  const auto doc = run_one({"--cache-mode", "rotating"}, dir);
  EXPECT_EQ(doc["metadata"]["options"]["cache_mode"], "rotating");
  expect_flushed_single_executions(doc, "rotating is for device providers",
                                   [](const json& t) { EXPECT_EQ(t["cache_fit"]["rotation_copies"], 1); });
}

// The default cache mode, auto, rotates device rows only: a CPU row is hot.
TEST(Measurement, HostRowsAreHotByDefaultAndLatencyIsRecorded) {
  TempDir dir;
  const auto hot = run_one({}, dir);
  EXPECT_EQ(hot["metadata"]["options"]["cache_mode"], "auto");
  const auto& t = hot["graphs"][0]["results"][0]["timing"];
  EXPECT_EQ(t["cache_mode"], "hot");
  EXPECT_EQ(t["meaning"], "throughput");
  EXPECT_TRUE(t["cache_flush"].is_null());
  const auto latency = run_one({"--latency", "--latency-idle-ms", "1", "--batch", "1"}, dir);
  const auto& l = latency["graphs"][0]["results"][0]["timing"];
  EXPECT_EQ(l["meaning"], "latency");
  EXPECT_NE(l["method"].get<std::string>().find("idle-gap(1 ms)"), std::string::npos) << l["method"];
  EXPECT_EQ(latency["metadata"]["options"]["batch"], 1);
}

// The time caps count elapsed time, batches included: --batch 20 --min-time-ms 300
// --max-time-ms 300 samples for 300 ms of wall time, not until 300 ms of per-execution time
// (20x longer).
TEST(Measurement, TimeCapHoldsInWallTimeWithBatches) {
  TempDir dir;
  const auto out = (dir / "r.json").string();
  const auto r = run_cli({"run", "-q", "-g", source_path(kConv), "--provider", "onednn", "--max-engines", "1",
                          "--warmup", "1", "--warmup-max-ms", "0", "--batch", "20", "--min-time-ms", "300",
                          "--max-time-ms", "300",
                          // Only the time cap: on an idle machine 2000 samples (the default
                          // --max-iters) of this conv took 230-270 ms.
                          "--max-iters", "1000000", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto doc = json::parse(read_text(out));
  const auto& row = doc["graphs"][0]["results"][0];
  ASSERT_EQ(row["status"], "success") << row.dump();
  const auto& t = row["timing"];
  EXPECT_EQ(t["batch"], 20);
  EXPECT_GE(t["elapsed_ms"].get<double>(), 300);
  // One sample past the cap at most, plus the loop's own bookkeeping.
  EXPECT_LT(t["wall_ms"].get<double>(), 450) << t.dump();
  EXPECT_LE(t["timed_ms"].get<double>(), t["elapsed_ms"].get<double>() * 1.001);
  EXPECT_TRUE(t["stop_reason"] == "time-cap" || t["stop_reason"] == "ci") << t["stop_reason"];
  EXPECT_GT(row["row_time_ms"].get<double>(), t["wall_ms"].get<double>());
  // The graph's wall time holds its rows' and its own stages' (the rest is overhead).
  const auto& graph = doc["graphs"][0];
  double accounted = 0;
  for (const auto& r : graph["results"]) accounted += r["row_time_ms"].get<double>();
  for (const auto& [stage, ms] : graph["stage_ms"].items()) accounted += ms.get<double>();
  EXPECT_GE(graph["wall_ms"].get<double>(), accounted) << graph["stage_ms"].dump();
  EXPECT_EQ(row["fp32_math"], "strict");
  const auto& run = doc["metadata"]["run_timing"];
  EXPECT_GT(run["elapsed_s"].get<double>(), 0.3);
  EXPECT_FALSE(run["start_utc"].get<std::string>().empty());
}

// A strict run turns TF32 off in NVIDIA's libraries (cuDNN's fp32 matmul engine uses it silently
// otherwise) and says so in its metadata; a tf32 run leaves the variable alone.
TEST(Measurement, StrictFp32MathSetsTheTf32OverrideAndTheMetadataShowsIt) {
  TempDir dir;
  const auto strict = run_one({}, dir);
  EXPECT_EQ(strict["metadata"]["environment"]["NVIDIA_TF32_OVERRIDE"], "0");
  const auto tf32 = run_one({"--fp32-math", "tf32"}, dir);
  EXPECT_TRUE(tf32["metadata"]["environment"]["NVIDIA_TF32_OVERRIDE"].is_null())
      << tf32["metadata"]["environment"];
}

TEST(Measurement, BadMeasurementFlagsExitTwo) {
  for (const auto& flags : std::vector<std::vector<std::string>>{
           {"--cache-mode", "warm"}, {"--batch", "0"}, {"--clock-tolerance", "2"}}) {
    std::vector<std::string> args = {"run", "-g", source_path(kConv)};
    args.insert(args.end(), flags.begin(), flags.end());
    const auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << flags[0] << ": " << r.err;
    EXPECT_NE(r.err.find(flags[0]), std::string::npos) << r.err;
  }
}

TEST(Calibrate, WritesTheNoiseFloorThatRunsRecord) {
  TempDir dir;
  std::filesystem::create_directories(dir / "cal");  // dnnbench makes no folder it is not asked for
  const auto file = (dir / "cal" / "calibration.json").string();
  const auto r = run_cli({"calibrate", "--provider", "onednn", "--repeats", "2", "--max-time-ms", "20",
                          "--warmup-max-ms", "0", "--calibration-file", file});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // Short or long by the medians, which a loaded machine can stretch: only the line is checked.
  EXPECT_NE(r.out.find("noise floor, "), std::string::npos) << r.out;
  const auto cal = json::parse(read_text(file));
  EXPECT_EQ(cal["repeats"], 2);
  ASSERT_EQ(cal["entries"].size(), 2u);
  for (const auto& e : cal["entries"]) {
    EXPECT_TRUE(e["error"].is_null()) << e["error"];
    EXPECT_EQ(e["medians_ms"].size(), 2u);
    EXPECT_GE(e["spread"].get<double>(), 0);
  }
  const auto doc = run_one({"--calibration-file", file}, dir);
  EXPECT_EQ(doc["metadata"]["noise_floor"]["file"], file);
  EXPECT_EQ(doc["metadata"]["noise_floor"]["repeats"], 2);
  const auto without = run_one({"--calibration-file", (dir / "absent.json").string()}, dir);
  EXPECT_TRUE(without["metadata"]["noise_floor"].is_null());
}

TEST(Calibrate, ABrokenGraphIsOneLineNamingTheFile) {
  TempDir dir;
  std::ofstream(dir / "broken.json") << "{\"name\": ";
  const auto r = run_cli({"calibrate", "--provider", "onednn", "-g", (dir / "broken.json").string(),
                          "--calibration-file", (dir / "c.json").string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("broken.json"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "c.json"));
}

}  // namespace
}  // namespace dnnbench::testing
