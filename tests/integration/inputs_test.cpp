// Integration tests of suites: every input form (files, globs, folders, archives, hostile
// archives), duplicates, selection filters, metadata, progress modes and exit codes.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "../support/archive_writer.hpp"
#include "cli_runner.hpp"

namespace dnnbench::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Fast settings: these tests check inputs and reports, not timings.
std::vector<std::string> quick(std::vector<std::string> args) {
  std::vector<std::string> all = {"run"};
  all.insert(all.end(), args.begin(), args.end());
  for (const char* a : {"--warmup", "0", "--iters", "2"}) all.push_back(a);
  return all;
}

std::string sample(const std::string& name) {
  return source_path("graphs/samples/" + name);
}

const json* graph_at(const json& doc, const std::string& path) {
  for (const auto& g : doc["graphs"])
    if (g["graph_path"] == path) return &g;
  return nullptr;
}

bool every_row_passed_or_skipped(const json& doc, std::string* why) {
  for (const auto& g : doc["graphs"])
    for (const auto& r : g["results"])
      if (r["status"] == "error" || (r["status"] == "success" && !r["passed"].get<bool>())) {
        *why = g["graph_path"].get<std::string>() + " " + r.dump();
        return false;
      }
  return true;
}

TEST(Inputs, QuotedGlobWithDoubleStarRunsMatchesInSortedOrder) {
  TempDir dir;
  fs::create_directories(dir / "deep/er");
  fs::copy_file(sample("pointwise_relu.json"), dir / "deep/er/b.json");
  fs::copy_file(sample("matmul_plain_fp32.json"), dir / "a.json");
  std::ofstream(dir / "deep/notes.txt") << "not a graph";
  const auto out = (dir / "r.json").string();
  const auto r = run_cli(quick({"-g", (dir / "**/*.json").string(), "-o", out}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto doc = read_json(out);
  ASSERT_EQ(doc["graphs"].size(), 2u);
  EXPECT_EQ(doc["graphs"][0]["graph_path"], (dir / "a.json").string());
  EXPECT_EQ(doc["graphs"][1]["graph_path"], (dir / "deep/er/b.json").string());
}

TEST(Inputs, GlobMatchingNothingIsAGraphError) {
  const auto r = run_cli(quick({"-g", "/nonexistent-dir/**/*.json"}));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("no graph file or archive matches"), std::string::npos) << r.out;
}

TEST(Inputs, SamplesPlusAFolderOfBrokenFilesCompletesAndReportsEachBrokenFile) {
  // The issue's "done when": every good row still passes, every broken file is named.
  TempDir dir;
  const auto broken = dir / "broken";
  fs::create_directories(broken);
  std::ofstream(broken / "not_json.json") << "{ this is not json";
  std::ofstream(broken / "bad_dims.json") << R"({"name": "bad", "tensors": [{"uid": 1, "name": "x",
    "dims": [2, "a"], "strides": [1, 1], "data_type": "float"}], "nodes": []})";
  std::ofstream(broken / "empty.json") << "";
  std::ofstream(broken / "array.json") << "[1, 2, 3]";
  const auto out = (dir / "r.json").string();
  const auto r = run_cli(quick({"-g", source_path("graphs/samples"), "-g", broken.string(), "-o", out}));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto doc = read_json(out);
  EXPECT_EQ(doc["complete"], true);
  EXPECT_EQ(doc["summary"]["graph_errors"], 4);
  EXPECT_EQ(doc["summary"]["failed"], 0);
  EXPECT_EQ(doc["summary"]["errors"], 0);
  EXPECT_GT(doc["summary"]["passed"].get<int>(), 60);
  std::string why;
  EXPECT_TRUE(every_row_passed_or_skipped(doc, &why)) << why;
  for (const char* name : {"not_json.json", "bad_dims.json", "empty.json", "array.json"}) {
    const auto path = (broken / name).string();
    const auto* g = graph_at(doc, path);
    ASSERT_TRUE(g) << name;
    EXPECT_EQ((*g)["status"], "error");
    const auto message = (*g)["error_message"].get<std::string>();
    EXPECT_EQ(message.rfind(path, 0), 0u) << message;  // the message starts with the file
    EXPECT_NE(r.out.find("load error: " + path), std::string::npos) << name;
  }
  EXPECT_NE(graph_at(doc, (broken / "bad_dims.json").string())
                ->at("error_message")
                .get<std::string>()
                .find("tensors[0].dims[1]"),
            std::string::npos);
}

class ArchiveInputs : public ::testing::Test {
 protected:
  static std::string text_of(const std::string& sample_name) { return read_text(sample(sample_name)); }
  // TMPDIR of the child: lets the test see that the extraction folder is removed.
  std::vector<std::string> env() const { return {"TMPDIR=" + tmp_.path().string()}; }
  bool tmp_is_empty() const { return fs::is_empty(tmp_.path()); }
  TempDir dir_, tmp_;
};

TEST_F(ArchiveInputs, EveryArchiveFormatRunsItsGraphsUnderArchivePaths) {
  const std::vector<std::pair<ArchiveFormat, std::string>> formats = {{ArchiveFormat::tar, "s.tar"},
                                                                      {ArchiveFormat::tar_gz, "s.tgz"},
                                                                      {ArchiveFormat::tar_xz, "s.tar.xz"},
                                                                      {ArchiveFormat::tar_bz2, "s.tar.bz2"},
                                                                      {ArchiveFormat::zip, "s.zip"}};
  std::vector<std::string> args;
  for (const auto& [format, name] : formats) {
    write_archive(dir_ / name, format,
                  {file_member("graphs/relu.json", text_of("pointwise_relu.json")),
                   file_member(name + ".json", text_of("matmul_plain_fp32.json"))});
    args.push_back((dir_ / name).string());
  }
  const auto out = (dir_ / "r.json").string();
  std::string list;
  for (const auto& a : args) list += (list.empty() ? "" : ",") + a;
  const auto r = run_cli(quick({"-g", list, "-o", out}), env());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto doc = read_json(out);
  // Each archive: its two graphs; but the same content repeats, so only the first of each runs.
  ASSERT_EQ(doc["graphs"].size(), 10u);
  EXPECT_EQ(doc["graphs"][0]["graph_path"], args[0] + ":graphs/relu.json");
  EXPECT_EQ(doc["graphs"][0]["status"], "ok");
  EXPECT_EQ(doc["graphs"][1]["graph_path"], args[0] + ":s.tar.json");
  EXPECT_EQ(doc["summary"]["duplicates"], 8);
  for (std::size_t k = 2; k < 10; ++k) {
    EXPECT_EQ(doc["graphs"][k]["status"], "duplicate") << k;
    EXPECT_TRUE(doc["graphs"][k]["results"].empty());
  }
  EXPECT_EQ(doc["graphs"][9]["duplicate_of"], args[0] + ":s.tar.json");
  EXPECT_TRUE(tmp_is_empty()) << "extraction folder left behind";
}

TEST_F(ArchiveInputs, HostileArchiveEntriesAreRefusedByNameAndTheGoodOnesRun) {
  ArchiveMember huge = file_member("huge.json", "");
  huge.zeros = 2 << 20;
  ArchiveMember fifo = link_member("pipe.json", "", ArchiveMember::Kind::fifo);
  ArchiveMember device = link_member("dev.json", "", ArchiveMember::Kind::char_device);
  write_archive(dir_ / "hostile.tar.gz", ArchiveFormat::tar_gz,
                {file_member("good.json", text_of("pointwise_relu.json")),
                 file_member("../escape.json", text_of("matmul_plain_fp32.json")),
                 file_member("/tmp/dnnbench-it-absolute.json", "{}"),
                 link_member("passwd.json", "/etc/passwd", ArchiveMember::Kind::symlink),
                 link_member("hard.json", "good.json", ArchiveMember::Kind::hardlink), fifo, device, huge});
  const auto archive = (dir_ / "hostile.tar.gz").string();
  const auto out = (dir_ / "r.json").string();
  const auto r = run_cli(quick({"-g", archive, "--max-archive-entry-bytes", "1000000", "-o", out}), env());
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto doc = read_json(out);
  const auto* good = graph_at(doc, archive + ":good.json");
  ASSERT_TRUE(good);
  EXPECT_EQ((*good)["status"], "ok");
  EXPECT_GT(doc["summary"]["passed"].get<int>(), 0);
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"../escape.json", "'..'"},
      {"/tmp/dnnbench-it-absolute.json", "absolute"},
      {"passwd.json", "symbolic link"},
      {"hard.json", "hard link"},
      {"pipe.json", "FIFO"},
      {"dev.json", "character device"},
      {"huge.json", "over the cap of 1000000 bytes"}};
  for (const auto& [entry, why] : refused) {
    const auto* g = graph_at(doc, archive + ":" + entry);
    ASSERT_TRUE(g) << entry;
    EXPECT_EQ((*g)["status"], "error");
    const auto message = (*g)["error_message"].get<std::string>();
    EXPECT_NE(message.find(archive + ": entry '" + entry + "': refused"), std::string::npos) << message;
    EXPECT_NE(message.find(why), std::string::npos) << message;
  }
  EXPECT_FALSE(fs::exists(dir_ / "escape.json"));
  EXPECT_FALSE(fs::exists("/tmp/dnnbench-it-absolute.json"));
  EXPECT_TRUE(tmp_is_empty()) << "extraction folder left behind";
}

TEST_F(ArchiveInputs, ZipBombIsStoppedAndCorruptArchivesAreErrors) {
  ArchiveMember bomb = file_member("bomb.json", "{");
  bomb.zeros = 4 << 20;
  bomb.size_unset = true;
  write_archive(dir_ / "bomb.zip", ArchiveFormat::zip, {bomb});
  std::ofstream(dir_ / "corrupt.tar.xz") << "definitely not xz";
  write_archive(dir_ / "cut.tar", ArchiveFormat::tar, {file_member("a.json", std::string(30000, ' '))});
  fs::resize_file(dir_ / "cut.tar", 4000);
  const auto out = (dir_ / "r.json").string();
  const auto r = run_cli(quick({"-g", (dir_ / "bomb.zip").string(), "-g", (dir_ / "corrupt.tar.xz").string(),
                                "-g", (dir_ / "cut.tar").string(), "-g", sample("pointwise_relu.json"),
                                "--max-archive-entry-bytes", "1000000", "-o", out}),
                         env());
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto doc = read_json(out);
  const auto* bomb_graph = graph_at(doc, (dir_ / "bomb.zip").string() + ":bomb.json");
  ASSERT_TRUE(bomb_graph) << doc["graphs"].dump(1);
  EXPECT_NE((*bomb_graph)["error_message"].get<std::string>().find("1000000"), std::string::npos);
  const auto* corrupt = graph_at(doc, (dir_ / "corrupt.tar.xz").string());
  ASSERT_TRUE(corrupt);
  EXPECT_EQ((*corrupt)["status"], "error");
  EXPECT_NE((*corrupt)["error_message"].get<std::string>().find("corrupt.tar.xz:"), std::string::npos);
  bool cut_reported = false;
  for (const auto& g : doc["graphs"])
    if (g["graph_path"].get<std::string>().rfind((dir_ / "cut.tar").string(), 0) == 0 &&
        g["status"] == "error")
      cut_reported = true;
  EXPECT_TRUE(cut_reported) << doc["graphs"].dump(1);
  EXPECT_EQ(graph_at(doc, sample("pointwise_relu.json"))->at("status"), "ok");  // the suite went on
  EXPECT_TRUE(tmp_is_empty());
}

TEST(Duplicates, SameContentUnderAnotherNameRunsOnce) {
  TempDir dir;
  auto text = read_text(sample("pointwise_relu.json"));
  const std::string key = "\"name\": \"pointwise_relu\"";
  text.replace(text.find(key), key.size(), "\"name\": \"renamed\"");
  std::ofstream(dir / "copy.json") << text;
  const auto out = (dir / "r.json").string();
  const auto r =
      run_cli(quick({"-g", sample("pointwise_relu.json") + "," + (dir / "copy.json").string(), "-o", out}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto doc = read_json(out);
  ASSERT_EQ(doc["graphs"].size(), 2u);
  EXPECT_EQ(doc["graphs"][1]["status"], "duplicate");
  EXPECT_EQ(doc["graphs"][1]["duplicate_of"], sample("pointwise_relu.json"));
  EXPECT_EQ(doc["graphs"][1]["graph_name"], "renamed");
  EXPECT_TRUE(doc["graphs"][0]["duplicate_of"].is_null());
  EXPECT_EQ(doc["summary"]["duplicates"], 1);
  EXPECT_NE(r.out.find("duplicate of " + sample("pointwise_relu.json")), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 duplicate graphs"), std::string::npos) << r.out;
}

TEST(Selection, OpFilterKeepsOnlyGraphsWithThatOpAndCountsTheRest) {
  TempDir dir;
  const auto out = (dir / "r.json").string();
  const auto r = run_cli(quick({"-g",
                                sample("pointwise_relu.json") + "," + sample("matmul_plain_fp32.json") + "," +
                                    sample("conv_fwd_2d_nhwc_fp32.json"),
                                "--op", "matmul,ConvolutionFwdAttributes", "-o", out}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto doc = read_json(out);
  EXPECT_EQ(doc["summary"]["filtered"], 1);
  EXPECT_EQ(graph_at(doc, sample("pointwise_relu.json"))->at("status"), "filtered");
  EXPECT_TRUE(graph_at(doc, sample("pointwise_relu.json"))->at("results").empty());
  EXPECT_EQ(graph_at(doc, sample("matmul_plain_fp32.json"))->at("status"), "ok");
  EXPECT_FALSE(graph_at(doc, sample("conv_fwd_2d_nhwc_fp32.json"))->at("results").empty());
  EXPECT_EQ(doc["metadata"]["options"]["ops"], json({"matmul", "ConvolutionFwdAttributes"}));
  EXPECT_NE(r.out.find("1 filtered out by --op"), std::string::npos) << r.out;
}

TEST(Selection, SkipEngineLeavesThoseEnginesOut) {
  TempDir dir;
  const auto out = (dir / "r.json").string();
  const auto r = run_cli(
      quick({"-g", sample("conv_fwd_2d_nchw_fp32.json"), "--skip-engine", "ref:any,jit:sse41", "-o", out}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto rows = read_json(out)["graphs"][0]["results"];
  ASSERT_FALSE(rows.empty());
  for (const auto& row : rows) {
    EXPECT_NE(row["engine_id"], "ref:any");
    EXPECT_NE(row["engine_id"], "jit:sse41");
  }
}

TEST(Metadata, HostProvidersGpuAndResolvedOptions) {
  TempDir dir;
  const auto out = (dir / "r.json").string();
  const auto r = run_cli(quick({"-g", sample("pointwise_relu.json"), "-o", out, "--skip-engine", "ref:any"}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto meta = read_json(out)["metadata"];
  for (const char* key : {"hostname", "os", "os_pretty_name", "kernel", "cpu_model", "logical_cores",
                          "memory_bytes", "numa_nodes"})
    EXPECT_TRUE(meta["host"].contains(key)) << key;
  if (fs::exists("/sys/devices/system/node/node0")) {
    ASSERT_TRUE(meta["host"]["numa_nodes"].is_array());
    EXPECT_EQ(meta["host"]["numa_nodes"][0]["node"], 0);
  }
  if (fs::exists("/etc/os-release")) {
    EXPECT_TRUE(meta["host"]["os_pretty_name"].is_string());
  }
  ASSERT_TRUE(meta.contains("gpu"));
  EXPECT_TRUE(meta["gpu"].is_null());  // a CPU-only run
  EXPECT_TRUE(meta["providers"]["onednn"]["version"].is_string());
  const auto& options = meta["options"];
  for (const char* key : {"warmup", "iters", "providers", "engines", "skip_engines", "engine_matrix", "ops",
                          "graphs", "recipe", "output", "max_archive_entry_bytes", "max_archive_bytes"})
    EXPECT_TRUE(options.contains(key)) << key;
  EXPECT_EQ(options["warmup"], 0);
  EXPECT_EQ(options["iters"], 2);
  EXPECT_EQ(options["skip_engines"], json({"ref:any"}));
  EXPECT_EQ(options["graphs"], json({sample("pointwise_relu.json")}));
  EXPECT_EQ(options["output"], out);
  EXPECT_TRUE(options["recipe"].is_null());
  EXPECT_TRUE(meta["environment"].contains("OMP_NUM_THREADS"));
  EXPECT_TRUE(meta["environment"].contains("DNNBENCH_PLAN_CACHE"));  // where compiled plans are kept
}

TEST(Console, HeaderNamesVersionProvidersAndGraphCount) {
  const auto r =
      run_cli(quick({"-g", sample("pointwise_relu.json") + "," + sample("matmul_plain_fp32.json")}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("dnnbench ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("providers: onednn oneDNN"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| 2 graph inputs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("onednn: "), std::string::npos);  // per-provider summary line
  EXPECT_NE(r.out.find("slowest rows (median ms):"), std::string::npos) << r.out;
}

TEST(Progress, PlainLinesWhenNotATerminalNothingWhenQuietBarWhenAsked) {
  const auto graphs = sample("pointwise_relu.json") + "," + sample("matmul_plain_fp32.json");
  const auto plain = run_cli(quick({"-g", graphs}));  // stderr is a file here
  ASSERT_EQ(plain.exit_code, 0);
  EXPECT_NE(plain.err.find("[1/2] " + sample("pointwise_relu.json") + "\n"), std::string::npos) << plain.err;
  EXPECT_NE(plain.err.find("[2/2] " + sample("matmul_plain_fp32.json") + "\n"), std::string::npos);
  EXPECT_EQ(plain.err.find('\r'), std::string::npos);

  const auto quiet = run_cli(quick({"-g", graphs, "--quiet"}));
  ASSERT_EQ(quiet.exit_code, 0);
  EXPECT_EQ(quiet.err.find("[1/2]"), std::string::npos) << quiet.err;
  EXPECT_EQ(quiet.out.find("dnnbench "), std::string::npos);  // no header either
  EXPECT_NE(quiet.out.find("Summary: 2 graphs"), std::string::npos);

  const auto bar = run_cli(quick({"-g", graphs, "--progress", "bar"}));
  ASSERT_EQ(bar.exit_code, 0);
  EXPECT_NE(bar.err.find("\r[2/2] "), std::string::npos) << bar.err;
  EXPECT_NE(bar.err.find("elapsed, ETA"), std::string::npos);
  EXPECT_EQ(bar.err.find("[1/2] " + sample("pointwise_relu.json") + "\n"), std::string::npos);

  const auto none = run_cli(quick({"-g", graphs, "--progress", "none"}));
  EXPECT_EQ(none.err.find("[1/2]"), std::string::npos);
  EXPECT_EQ(run_cli(quick({"-g", graphs, "--progress", "sparkles"})).exit_code, 2);
}

TEST(DryRun, ListsWhatWouldRunWithoutRunningIt) {
  TempDir dir;
  const auto out = (dir / "r.json").string();
  const auto r =
      run_cli(quick({"-g", source_path("graphs/samples"), "--op", "matmul", "--dry-run", "-o", out}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_FALSE(fs::exists(out)) << "a dry run writes nothing";
  EXPECT_NE(r.out.find("filtered out by --op"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("would run"), std::string::npos);
}

TEST(ExitCodes, ZeroOneTwoThree) {
  EXPECT_EQ(run_cli(quick({"-g", sample("pointwise_relu.json")})).exit_code, 0);
  EXPECT_EQ(run_cli(quick({"-g", "/nonexistent/x.json"})).exit_code, 1);
  EXPECT_EQ(run_cli({"run"}).exit_code, 2);
  EXPECT_EQ(run_cli(quick({"-g", sample("pointwise_relu.json"), "--config", "/nonexistent.toml"})).exit_code,
            2);
  EXPECT_EQ(run_cli(quick({"-g", sample("layernorm_training.json"), "--rtol", "0", "--atol", "0"})).exit_code,
            3);
}

}  // namespace
}  // namespace dnnbench::testing
