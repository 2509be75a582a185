// What a new user meets in the first hour (issue 11): a graph's engines independent of what ran
// before, results files that are never lost or half-written, stops that say they were stops, dump
// folders that do not overwrite each other, `tar -C dir .` archives, and typos that are errors.
#include <gtest/gtest.h>

#include <fstream>

#include "../support/archive_writer.hpp"
#include "cli_runner.hpp"

namespace dnnbench::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string sample(const std::string& name) {
  return source_path("graphs/samples/" + name);
}

bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

// A sample graph with another top-level name, written to `path`.
void write_renamed(const fs::path& path, const std::string& sample_name, const std::string& name) {
  auto graph = json::parse(read_text(sample(sample_name)));
  graph["name"] = name;
  std::ofstream(path) << graph.dump();
}

// The engine ids of one graph's rows.
std::vector<std::string> engine_ids(const json& graph) {
  std::vector<std::string> ids;
  for (const auto& row : graph.at("results")) ids.push_back(row.value("engine_id", ""));
  return ids;
}

// ---- oneDNN's engine list --------------------------------------------------------------------

// The NHWC conv after the NCHW one (both lower to the same oneDNN operation) has the engines it
// has alone: oneDNN's primitive cache made the second list twice as long (jit:avx2#2, ...).
TEST(FirstHour, OneDnnEnginesDoNotDependOnTheGraphsBefore) {
  if (!provider_built("onednn")) GTEST_SKIP() << "no oneDNN provider in this build";
  TempDir dir;
  const auto alone = run_cli(run_args({"-g", sample("conv_fwd_2d_nhwc_fp32.json"), "--provider", "onednn",
                                       "-q", "-o", (dir / "alone.json").string()}));
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  const auto both = run_cli(
      run_args({"-g", sample("conv_fwd_2d_nchw_fp32.json"), "-g", sample("conv_fwd_2d_nhwc_fp32.json"),
                "--provider", "onednn", "-q", "-o", (dir / "both.json").string()}));
  ASSERT_EQ(both.exit_code, 0) << both.err;
  const auto alone_ids = engine_ids(read_json(dir / "alone.json").at("graphs").at(0));
  EXPECT_EQ(engine_ids(read_json(dir / "both.json").at("graphs").at(1)), alone_ids);
  for (const auto& id : alone_ids) EXPECT_FALSE(has(id, "#")) << id;
  // --max-engines picks the heuristic's first two, whatever ran before.
  const auto two = run_cli(
      run_args({"-g", sample("conv_fwd_2d_nchw_fp32.json"), "-g", sample("conv_fwd_2d_nhwc_fp32.json"),
                "--provider", "onednn", "--max-engines", "2", "-q", "-o", (dir / "two.json").string()}));
  ASSERT_EQ(two.exit_code, 0) << two.err;
  ASSERT_GE(alone_ids.size(), 2u);
  EXPECT_EQ(engine_ids(read_json(dir / "two.json").at("graphs").at(1)),
            (std::vector<std::string>{alone_ids[0], alone_ids[1]}));
}

// ---- results files ---------------------------------------------------------------------------

TEST(FirstHour, DryRunWritesNothing) {
  TempDir dir;
  const auto out = dir / "r.json";
  std::ofstream(out) << "{\"earlier\": true}\n";
  const auto r = run_cli(run_args({"-g", sample("pointwise_relu.json"), "--dry-run", "-o", out.string()}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(out), "{\"earlier\": true}\n");
  EXPECT_FALSE(fs::exists(out.string() + ".journal.jsonl"));
  EXPECT_FALSE(fs::exists(out.string() + ".tmp"));
  EXPECT_TRUE(has(r.out, "nothing written")) << r.out;
}

// -o is checked before anything runs: exit 2 naming the problem, nothing left behind, no folder made.
TEST(FirstHour, UnwritableOutputIsAUsageErrorBeforeRunning) {
  TempDir dir;
  fs::create_directories(dir / "results");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {(dir / "results").string(), "is a folder"},
      {(dir / "missing" / "r.json").string(), "does not exist"},
      {"/sys/dnnbench-r.json", "cannot write"}};  // /sys refuses new files, even to root
  for (const auto& [path, why] : cases) {
    const auto r = run_cli(run_args({"-g", sample("pointwise_relu.json"), "-o", path}));
    EXPECT_EQ(r.exit_code, 2) << path << "\n" << r.out << r.err;
    EXPECT_TRUE(has(r.err, "-o")) << r.err;
    EXPECT_TRUE(has(r.err, why)) << r.err;
    EXPECT_FALSE(has(r.out, "pointwise_relu")) << "ran before refusing: " << r.out;
  }
  EXPECT_FALSE(fs::exists(dir / "results.tmp"));
  EXPECT_FALSE(fs::exists(dir / "missing"));
}

// ---- dnnbench calibrate ----------------------------------------------------------------------

TEST(FirstHour, FailedCalibrationKeepsTheGoodFile) {
  TempDir dir;
  const auto file = dir / "calibration.json";
  std::ofstream(file) << "{\"short_spread\": 0.01}\n";
  // Nothing measurable: the reference provider offers no engine for block-scale quantization.
  const auto r = run_cli({"calibrate", "-g", sample("unsupported_block_scale_quantize.json"), "--provider",
                          "reference", "--repeats", "2", "--calibration-file", file.string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "left as it was")) << r.err;
  EXPECT_EQ(read_text(file), "{\"short_spread\": 0.01}\n");
}

TEST(FirstHour, OneUnreadableCalibrationInputCostsOnlyItself) {
  TempDir dir;
  std::ofstream(dir / "broken.json") << "{\"name\": ";
  const auto file = dir / "calibration.json";
  const auto r = run_cli({"calibrate", "-g", (dir / "broken.json").string(), "-g",
                          sample("pointwise_relu.json"), "--provider", "reference", "--repeats", "2",
                          "--max-time-ms", "50", "--calibration-file", file.string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "broken.json")) << r.err;
  ASSERT_TRUE(fs::exists(file)) << r.out << r.err;
  const auto calibration = read_json(file);
  ASSERT_EQ(calibration.at("entries").size(), 1u);
  EXPECT_TRUE(calibration.at("entries").at(0).at("error").is_null());
}

// ---- --dump-tensors --------------------------------------------------------------------------

TEST(FirstHour, DumpFoldersOfGraphsWithTheSameNameAreKeptApart) {
  TempDir dir;
  write_renamed(dir / "a.json", "pointwise_relu.json", "same");
  write_renamed(dir / "b.json", "pointwise_tanh.json", "same");
  // In this process, and in isolated children (which are told the folder the parent chose).
  for (const char* isolate : {"none", "graph"}) {
    const auto dump = dir / (std::string("dump-") + isolate);
    const auto r =
        run_cli(run_args({"-g", (dir / "a.json").string(), "-g", (dir / "b.json").string(), "--provider",
                          "reference", "-q", "--isolate", isolate, "--dump-tensors", dump.string()}));
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    for (const char* folder : {"same", "same-2"}) {
      EXPECT_TRUE(fs::is_directory(dump / folder / "inputs")) << folder;
      EXPECT_TRUE(fs::is_directory(dump / folder / "reference")) << folder;
      EXPECT_TRUE(fs::is_directory(dump / folder / "reference" / "cpu-fp64")) << folder;
    }
    // Different graphs: their reference outputs differ (relu vs tanh of the same seeded inputs).
    EXPECT_NE(read_text(dump / "same" / "reference" / "y.npy"),
              read_text(dump / "same-2" / "reference" / "y.npy"));
  }
}

// ---- archives made with `tar -C dir .` ----------------------------------------------------------

TEST(FirstHour, TarOfADotFolderRunsAndCalibrates) {
  TempDir dir;
  ArchiveMember dot;
  dot.name = "./";
  dot.kind = ArchiveMember::Kind::folder;
  ArchiveMember sub = dot;
  sub.name = "./sub/";
  write_archive(dir / "x.tgz", ArchiveFormat::tar_gz,
                {dot, sub, file_member("./a.json", read_text(sample("pointwise_relu.json"))),
                 file_member("./sub/b.json", read_text(sample("pointwise_tanh.json")))});
  const auto archive = (dir / "x.tgz").string();
  const auto out = dir / "r.json";
  const auto r = run_cli(run_args({"-g", archive, "--provider", "reference", "-q", "-o", out.string()}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto doc = read_json(out);
  ASSERT_EQ(doc.at("graphs").size(), 2u) << doc.at("graphs").dump(1);
  EXPECT_EQ(doc["graphs"][0]["graph_path"], archive + ":a.json");
  EXPECT_EQ(doc["graphs"][1]["graph_path"], archive + ":sub/b.json");
  EXPECT_EQ(doc["summary"]["graph_errors"], 0);

  const auto c = run_cli({"calibrate", "-g", archive, "--provider", "reference", "--repeats", "2",
                          "--max-time-ms", "50", "--calibration-file", (dir / "c.json").string()});
  EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
  EXPECT_EQ(read_json(dir / "c.json").at("entries").size(), 2u);
}

// ---- typos -----------------------------------------------------------------------------------

// Runs one graph file and returns its error message (the graph must fail to load, exit 1).
std::string load_error(const TempDir& dir, const std::string& text) {
  std::ofstream(dir / "typo.json") << text;
  const auto out = dir / "r.json";
  const auto r =
      run_cli(run_args({"-g", (dir / "typo.json").string(), "--provider", "reference", "-o", out.string()}));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto doc = read_json(out);
  EXPECT_EQ(doc["graphs"][0]["status"], "error");
  return doc["graphs"][0].value("error_message", "");
}

// The conv sample with one string replaced.
std::string conv_with(const std::string& from, const std::string& to) {
  auto text = read_text(sample("conv_fwd_2d_nchw_fp32.json"));
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(FirstHour, MisspeltNodeTypeIsALoadErrorWithASuggestion) {
  TempDir dir;
  const auto message =
      load_error(dir, conv_with("\"ConvolutionFwdAttributes\"", "\"ConvolutionFwdAtributes\""));
  EXPECT_TRUE(has(message, "typo.json")) << message;
  EXPECT_TRUE(has(message, "nodes[0].type")) << message;
  EXPECT_TRUE(has(message, "did you mean \"ConvolutionFwdAttributes\"")) << message;
}

TEST(FirstHour, MisspeltKeysAreLoadErrorsWithASuggestion) {
  TempDir dir;
  auto message = load_error(dir, conv_with("\"conv_mode\"", "\"conv_mod\""));
  EXPECT_TRUE(has(message, "nodes[0].parameters.conv_mod")) << message;
  EXPECT_TRUE(has(message, "did you mean `conv_mode`")) << message;
  message = load_error(dir, conv_with("\"strides\"", "\"strdes\""));
  EXPECT_TRUE(has(message, "tensors[0].strdes")) << message;
  EXPECT_TRUE(has(message, "did you mean `strides`")) << message;
  message = load_error(
      dir, conv_with("\"name\": \"conv\",", "\"name\": \"conv\", \"compute_datatype\": \"float\","));
  EXPECT_TRUE(has(message, "nodes[0].compute_datatype")) << message;
}

// A hipDNN type that no provider executes is still a skipped row, not an error.
TEST(FirstHour, KnownButUnexecutedNodeTypeIsStillSkipped) {
  const auto r =
      run_cli(run_args({"-g", sample("unsupported_block_scale_quantize.json"), "--provider", "reference"}));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST(FirstHour, UnknownOpFilterIsAUsageErrorListingTheFamilies) {
  const auto r = run_cli(run_args({"-g", sample("pointwise_relu.json"), "--op", "nosuchop"}));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "--op nosuchop")) << r.err;
  for (const char* family : {"conv_fwd", "matmul", "pointwise", "layernorm"})
    EXPECT_TRUE(has(r.err, family)) << r.err;
  // Families and node types still filter.
  EXPECT_EQ(
      run_cli(run_args({"-g", sample("pointwise_relu.json"), "--op", "pointwise", "--dry-run"})).exit_code,
      0);
  EXPECT_EQ(run_cli(run_args({"-g", sample("pointwise_relu.json"), "--op", "SdpaAttributes", "--dry-run"}))
                .exit_code,
            0);
}

TEST(FirstHour, EngineNoGraphOffersIsWarnedAbout) {
  const auto r = run_cli(
      run_args({"-g", sample("pointwise_relu.json"), "--provider", "reference", "--engine", "cpu-fp46"}));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "warning: --engine cpu-fp46")) << r.err;
  const auto fine = run_cli(
      run_args({"-g", sample("pointwise_relu.json"), "--provider", "reference", "--engine", "cpu-fp64"}));
  EXPECT_FALSE(has(fine.err, "warning: --engine")) << fine.err;
}

}  // namespace
}  // namespace dnnbench::testing
