// Integration tests of the tuning database on oneDNN (its plans differ in the layout knob):
// `run --oracle --export-plans`, `plans merge` (identical records once, conflicting winners both
// kept), `run --plans-from` (re-timing instead of sweeping; an unbuildable stored plan is skipped
// with the library's reason; a stored engine today's library does not offer is a skipped row),
// and --profile's refusals and child (a fake ncu on PATH).
#include <gtest/gtest.h>

#include <fstream>

#include "cli_runner.hpp"

namespace dnnbench::testing {
namespace {

using nlohmann::json;

const std::string kGraph = "graphs/samples/conv_fwd_2d_nhwc_fp32.json";

std::vector<json> read_lines(const std::filesystem::path& path) {
  std::vector<json> records;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) records.push_back(json::parse(line));
  return records;
}

void write_lines(const std::filesystem::path& path, const std::vector<json>& records) {
  std::ofstream out(path);
  for (const auto& r : records) out << r.dump() << "\n";
}

// Records of one oracle run of the conv graph (two engines, short sweeps).
std::vector<json> export_plans(const TempDir& dir, const std::string& name) {
  const auto file = dir / name;
  const auto r =
      run_cli(run_args({"-q", "-g", source_path(kGraph), "--provider", "onednn", "--max-engines", "2",
                        "--oracle", "--oracle-max-seconds", "3", "--export-plans", file.string()}));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  return read_lines(file);
}

json run_plans_from(const TempDir& dir, const std::filesystem::path& plans, CliResult* result = nullptr) {
  const auto out = (dir / "retimed.json").string();
  const auto r = run_cli(run_args(
      {"-g", source_path(kGraph), "--provider", "onednn", "--plans-from", plans.string(), "-o", out}));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  if (result) *result = r;
  return json::parse(read_text(out));
}

bool have_jsonschema() {
  return std::system("/usr/bin/python3 -c 'import jsonschema' >/dev/null 2>&1") == 0;
}

TEST(TuningDbCommand, ExportWritesOneValidRecordPerOracleRow) {
  TempDir dir;
  const auto records = export_plans(dir, "plans.jsonl");
  ASSERT_EQ(records.size(), 2u);
  for (const auto& r : records) {
    EXPECT_EQ(r["format"], "dnnbench-tuning-db");
    EXPECT_EQ(r["key"]["provider"], "onednn");
    EXPECT_TRUE(r["key"]["graph_hash"].get<std::string>().rfind("fnv1a64:", 0) == 0);
    EXPECT_TRUE(r["key"]["library_version"].is_string());
    EXPECT_TRUE(r["key"]["compute_capability"].is_null());
    EXPECT_EQ(r["key"]["fp32_math"], "strict");
    EXPECT_EQ(r["basis"], "host");
    EXPECT_FALSE(r["heuristic"]["stats"].is_null());
    ASSERT_FALSE(r["candidates"].empty());
    EXPECT_EQ(r["candidates"][0]["plan_name"], r["heuristic"]["plan_name"]);
    // The layout knob, structured: engine id + [name, value] pairs.
    ASSERT_EQ(r["heuristic"]["knobs"].size(), 1u);
    EXPECT_EQ(r["heuristic"]["knobs"][0][0], "layout");
    EXPECT_TRUE(r.contains("significance"));
  }
  if (!have_jsonschema()) GTEST_SKIP() << "python3-jsonschema is not installed";
  const auto check =
      "/usr/bin/python3 -c 'import json, sys, jsonschema; s = json.load(open(sys.argv[2]));\n"
      "[jsonschema.validate(json.loads(l), s) for l in open(sys.argv[1]) if l.strip()]' " +
      shell_quote((dir / "plans.jsonl").string()) + " " +
      shell_quote(source_path("docs/tuning-db.schema.json")) + " 2>&1";
  EXPECT_EQ(std::system(check.c_str()), 0) << "records do not match docs/tuning-db.schema.json";
}

TEST(TuningDbCommand, ExportNeedsTheOracle) {
  TempDir dir;
  const auto r = run_cli(run_args({"-q", "-g", source_path(kGraph), "--provider", "onednn", "--export-plans",
                                   (dir / "p.jsonl").string()}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--export-plans needs --oracle"), std::string::npos) << r.err;
}

TEST(TuningDbCommand, MergeKeepsIdenticalRecordsOnceAndConflictingWinnersBoth) {
  TempDir dir;
  auto a = export_plans(dir, "a.jsonl");
  ASSERT_FALSE(a.empty());
  // Identical records: merged once.
  auto r = run_cli({"plans", "merge", (dir / "a.jsonl").string(), (dir / "a.jsonl").string(), "-o",
                    (dir / "aa.jsonl").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_lines(dir / "aa.jsonl"), a);
  EXPECT_NE(r.out.find(std::to_string(a.size()) + " identical dropped"), std::string::npos) << r.out;

  // Another machine found another winner for the first key: both are kept, the conflict listed.
  auto b = a;
  b[0]["winner"]["plan_name"] = "other:impl_layout=plain";
  b[0]["winner"]["knobs"] = json::parse(R"([["layout", "plain"]])");
  b[0]["recorded"]["host"] = "elsewhere";
  b.resize(1);
  write_lines(dir / "b.jsonl", b);
  r = run_cli({"plans", "merge", (dir / "a.jsonl").string(), (dir / "b.jsonl").string(), "-o",
               (dir / "ab.jsonl").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto merged = read_lines(dir / "ab.jsonl");
  ASSERT_EQ(merged.size(), a.size() + 1);
  EXPECT_EQ(merged[0], a[0]);
  EXPECT_EQ(merged.back(), b[0]);
  EXPECT_NE(r.out.find("1 key(s) with conflicting winners (all kept)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("other:impl_layout=plain"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(a[0]["winner"]["plan_name"].get<std::string>()), std::string::npos) << r.out;

  // A file that is not a tuning file: the file and line are named.
  write_lines(dir / "bad.jsonl", {a[0], json{{"hello", 1}}});
  r = run_cli({"plans", "merge", (dir / "bad.jsonl").string(), "-o", (dir / "x.jsonl").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("bad.jsonl:2: not a dnnbench tuning record"), std::string::npos) << r.err;
}

TEST(TuningDbCommand, PlansFromRetimesTheStoredPlansOfTheStoredEnginesOnly) {
  TempDir dir;
  const auto a = export_plans(dir, "a.jsonl");
  ASSERT_EQ(a.size(), 2u);
  CliResult console;
  const auto doc = run_plans_from(dir, dir / "a.jsonl", &console);
  const auto& rows = doc["graphs"][0]["results"];
  ASSERT_EQ(rows.size(), 2u) << "the rows are the stored engines, not every engine oneDNN offers";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    EXPECT_EQ(row["engine_id"], a[i]["key"]["engine_id"]);
    ASSERT_FALSE(row["plans_from"].is_null()) << row.dump();
    const auto& p = row["plans_from"];
    EXPECT_EQ(p["stored_winner"], a[i]["winner"]["plan_name"]);
    EXPECT_EQ(p["stored_heuristic"], a[i]["heuristic"]["plan_name"]);
    EXPECT_EQ(p["today_heuristic"], row["plan_name"]);
    EXPECT_FALSE(p["heuristic_changed"].get<bool>()) << "same library: same heuristic";
    ASSERT_FALSE(p["plans"].empty());
    const auto& w = p["plans"][0];
    EXPECT_EQ(w["role"], "stored-winner");
    if (p["stored_winner"] == p["today_heuristic"]) {
      EXPECT_EQ(w["status"], "same-plan");
      EXPECT_EQ(p["verdict"], "heuristic-picks-tuned");
      EXPECT_TRUE(p["tuned_still_wins"].is_null());
    } else {
      EXPECT_EQ(w["status"], "measured");
      EXPECT_FALSE(w["delta"].is_null());
      EXPECT_TRUE(p["verdict"] == "tuned-still-wins" || p["verdict"] == "no-longer-wins") << p["verdict"];
    }
    EXPECT_TRUE(row["oracle"].is_null()) << "no sweep";
  }
  EXPECT_NE(console.out.find("Plans from the tuning file: stored winner vs today's pick"), std::string::npos)
      << console.out;
  EXPECT_EQ(doc["metadata"]["options"]["plans_from"], (dir / "a.jsonl").string());
}

TEST(TuningDbCommand, UnbuildablePlansAreSkippedWithTheLibrarysReason) {
  TempDir dir;
  auto a = export_plans(dir, "a.jsonl");
  ASSERT_EQ(a.size(), 2u);
  // A knob value today's library does not know, and an engine it does not offer.
  a[0]["winner"]["plan_name"] = a[0]["key"]["engine_id"].get<std::string>() + "_layout=blocked_v2";
  a[0]["winner"]["knobs"] = json::parse(R"([["layout", "blocked_v2"]])");
  a[1]["key"]["engine_id"] = "jit:future_isa";
  write_lines(dir / "edited.jsonl", a);
  CliResult console;
  const auto doc = run_plans_from(dir, dir / "edited.jsonl", &console);
  const auto& rows = doc["graphs"][0]["results"];
  ASSERT_EQ(rows.size(), 2u);
  const auto& p = rows[0]["plans_from"];
  ASSERT_FALSE(p.is_null());
  EXPECT_EQ(p["verdict"], "stored-plan-skipped");
  EXPECT_EQ(p["plans"][0]["status"], "skipped");
  const auto reason = p["plans"][0]["skip_reason"].get<std::string>();
  EXPECT_NE(reason.find("cannot build the stored plan"), std::string::npos) << reason;
  EXPECT_NE(reason.find("knob layout takes any, plain_data or plain, not 'blocked_v2'"), std::string::npos)
      << reason;
  EXPECT_EQ(rows[0]["status"], "success") << "the OOTB row is unchanged";
  EXPECT_EQ(rows[1]["engine_id"], "jit:future_isa");
  EXPECT_EQ(rows[1]["status"], "skipped");
  EXPECT_NE(rows[1]["skip_reason"].get<std::string>().find("not offered"), std::string::npos);
  EXPECT_NE(console.out.find("stored-plan-skipped"), std::string::npos) << console.out;
}

TEST(TuningDbCommand, BadTuningFileIsAUsageErrorNamingTheLine) {
  TempDir dir;
  { std::ofstream(dir / "bad.jsonl") << "\n{\"format\": 3}\n"; }
  const auto r = run_cli(run_args({"-q", "-g", source_path(kGraph), "--provider", "onednn", "--plans-from",
                                   (dir / "bad.jsonl").string()}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--plans-from: " + (dir / "bad.jsonl").string() + ":2: not a dnnbench tuning record"),
            std::string::npos)
      << r.err;
}

TEST(ProfileCommand, MissingNcuIsExit2AtStart) {
  TempDir dir;
  const auto r = run_cli(run_args({"-g", source_path(kGraph), "--provider", "onednn", "--profile", "ncu",
                                   "-o", (dir / "r.json").string()}),
                         {"PATH=" + dir.path().string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("ncu (Nsight Compute) is not on PATH"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "r.json")) << "nothing ran";
  const auto nsys = run_cli(run_args({"-g", source_path(kGraph), "--profile", "nsys"}));
  EXPECT_EQ(nsys.exit_code, 2);
  EXPECT_NE(nsys.err.find("cannot turn it into a report"), std::string::npos) << nsys.err;
  const auto bad = run_cli(run_args({"-g", source_path(kGraph), "--profile", "perf"}));
  EXPECT_EQ(bad.exit_code, 2);
}

// A stand-in for ncu: records its arguments and the child's request (`self _child profile FILE`),
// runs the child it was given, writes a report; on --import prints a raw-page CSV of one kernel.
// clang-format off
const char* kFakeNcu = R"SH(#!/bin/sh
if [ "$1" = "--import" ]; then
  printf '"ID","Kernel Name","Block Size","Grid Size","gpu__time_duration.sum","launch__registers_per_thread"\n'
  printf '"","","","","nsecond","register/thread"\n'
  for i in 1 2 3; do printf '"%s","fake_kernel","(32, 1, 1)","(4, 1, 1)","2000","40"\n' "$i"; done
  exit 0
fi
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift 2;;
    --profile-from-start|--clock-control|--cache-control|--section) shift 2;;
    --nvtx|-f) shift;;
    *) break;;
  esac
done
printf '%s\n' "$@" > "$out.argv"
[ "$2" = "_child" ] && cp "$4" "$out.request.json"
"$@" || exit $?
echo report > "$out.ncu-rep"
)SH";
// clang-format on

TEST(ProfileCommand, EachSuccessfulRowIsRerunInAnAllowlistedChild) {
  TempDir dir;
  const auto bin = dir / "bin";
  std::filesystem::create_directories(bin);
  { std::ofstream(bin / "ncu") << kFakeNcu; }
  std::filesystem::permissions(bin / "ncu", std::filesystem::perms::owner_all);
  const auto out = (dir / "r.json").string();
  const auto profiles = dir / "profiles";
  const auto r = run_cli(run_args({"-v", "-g", source_path(kGraph), "--provider", "onednn", "--max-engines",
                                   "1", "--oracle", "--oracle-max-seconds", "1", "--profile", "ncu",
                                   "--profile-dir", profiles.string(), "-o", out}),
                         {"PATH=" + bin.string() + ":/usr/bin:/bin"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto doc = json::parse(read_text(out));
  const auto& row = doc["graphs"][0]["results"][0];
  ASSERT_FALSE(row["profile"].is_null());
  const auto& p = row["profile"];
  ASSERT_TRUE(p["error"].is_null()) << p["error"];
  EXPECT_EQ(p["tool"], "ncu");
  ASSERT_EQ(p["kernels"].size(), 1u);
  EXPECT_EQ(p["kernels"][0]["name"], "fake_kernel");
  EXPECT_EQ(p["kernels"][0]["launches"], 1);
  EXPECT_DOUBLE_EQ(p["kernels"][0]["duration_ms"].get<double>(), 0.002);
  EXPECT_EQ(p["kernels"][0]["registers_per_thread"], 40);
  EXPECT_TRUE(std::filesystem::exists(p["report_path"].get<std::string>()));
  EXPECT_TRUE(std::filesystem::exists(p["csv_path"].get<std::string>()));
  EXPECT_NE(r.out.find("Profile (ncu, 3 executions)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fake_kernel"), std::string::npos) << r.out;
  // The child's command line: this binary's child entry; its request: the allowlist, no profiling or
  // oracle flag, and the row's plan.
  std::vector<std::string> argv;
  json request;
  for (const auto& entry : std::filesystem::directory_iterator(profiles)) {
    if (entry.path().extension() == ".argv") {
      std::ifstream in(entry.path());
      for (std::string line; std::getline(in, line);) argv.push_back(line);
    }
    if (entry.path().string().ends_with(".request.json")) request = json::parse(read_text(entry.path()));
  }
  ASSERT_EQ(argv.size(), 4u);
  EXPECT_EQ(argv[1], "_child");
  EXPECT_EQ(argv[2], "profile");
  ASSERT_TRUE(request.is_object()) << "the fake ncu saw no request file";
  EXPECT_EQ(request["role"], "profile");
  EXPECT_EQ(request["job"]["plan"], row["plan_name"]);
  for (const auto& a : request["run_arguments"]) {
    EXPECT_EQ(a.get<std::string>().find("--profile"), std::string::npos) << a;
    EXPECT_NE(a, "--oracle");
    EXPECT_NE(a, "-o");
  }
}  // namespace

}  // namespace
}  // namespace dnnbench::testing
