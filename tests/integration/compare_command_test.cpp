// Integration tests of `dnnbench compare` and `dnnbench report`: the real binary on result files
// made by real runs (oneDNN on the CPU, a few graphs, few samples).
#include <gtest/gtest.h>

#include <cstdlib>

#include "cli_runner.hpp"

namespace dnnbench::testing {
namespace {

using nlohmann::json;

// Graphs on which oneDNN's reference implementation (ref:any) is far slower than its best engine,
// so a run restricted to it is a clear regression.
const std::vector<std::string> kGraphs = {"graphs/samples/conv_fwd_2d_nhwc_fp32.json",
                                          "graphs/samples/matmul_plain_fp32.json"};

std::vector<std::string> run_command(const std::string& output, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"run",     "-q", "--provider",      "onednn", "--warmup",       "1",
                                   "--iters", "8",  "--warmup-max-ms", "0",      "--save-samples", "-o",
                                   output};
  for (const auto& g : kGraphs) {
    args.push_back("-g");
    args.push_back(source_path(g));
  }
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

void write_json(const std::filesystem::path& path, const json& doc) {
  std::ofstream(path) << doc.dump(1);
}

// Two runs shared by the tests (made once): every engine, and only ref:any.
class CompareCommand : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    // One oneDNN thread: on a loaded machine a multi-threaded primitive waits for its descheduled
    // threads, which turns microsecond kernels into scheduler time slices (24 ms medians were seen
    // here) and the comparison into noise.
    const std::vector<std::string> one_thread = {"OMP_NUM_THREADS=1"};
    const auto full = run_cli(run_command(full_path(), {"--csv", (*dir_ / "full.csv").string()}), one_thread);
    ASSERT_EQ(full.exit_code, 0) << full.out << full.err;
    const auto ref = run_cli(run_command(ref_path(), {"--engine", "ref:any"}), one_thread);
    ASSERT_EQ(ref.exit_code, 0) << ref.out << ref.err;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string full_path() { return (*dir_ / "full.json").string(); }
  static std::string ref_path() { return (*dir_ / "ref.json").string(); }
  static std::filesystem::path path(const std::string& name) { return *dir_ / name; }
  static TempDir* dir_;
};
TempDir* CompareCommand::dir_ = nullptr;

TEST_F(CompareCommand, RunComparedWithItselfHasNoRegressionAndExitsZero) {
  const auto r = run_cli({"compare", full_path(), full_path()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("0 FASTER, 0 SLOWER"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Regressions: 0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Conditions: identical"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Geomean B/A time: 1.0000"), std::string::npos) << r.out;
}

TEST_F(CompareCommand, ReferenceEngineOnlyByBestIsARegressionNamingEachGraph) {
  const auto json_out = path("best.json"), csv_out = path("best.csv");
  // Allowed: on a loaded machine the two runs' conditions differ, and the regressions are the point.
  const auto r = run_cli({"compare", full_path(), ref_path(), "--by", "best", "--allow-different-conditions",
                          "--json", json_out.string(), "--csv", csv_out.string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto regressions = r.out.substr(r.out.find("Regressions: "));
  EXPECT_EQ(regressions.rfind("Regressions: 2\n", 0), 0u) << r.out;
  for (const char* graph : {"conv_fwd_2d_nhwc_fp32", "matmul_plain_fp32"})
    EXPECT_NE(regressions.find(graph), std::string::npos) << graph << "\n" << r.out;
  EXPECT_NE(r.out.find("option engines"), std::string::npos) << "the header names the differing --engine";
  const auto doc = read_json(json_out);
  ASSERT_EQ(doc["comparisons"].size(), 1u);
  const auto& c = doc["comparisons"][0];
  EXPECT_EQ(c["by"], "best");
  EXPECT_EQ(c["summary"]["regressions"], 2);
  for (const auto& row : c["rows"]) {
    EXPECT_EQ(row["verdict"], "SLOWER") << row.dump();
    EXPECT_EQ(row["engine_b"], "ref:any");
    EXPECT_GT(row["ratio"]["ci95"][0].get<double>(), 1.03);
    EXPECT_EQ(row["ratio"]["method"], "bootstrap");
  }
  const auto csv = read_text(csv_out);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3) << csv;
  EXPECT_EQ(csv.rfind("graph,graph_key,provider,engine_a,engine_b", 0), 0u);
}

TEST_F(CompareCommand, ByEngineJoinsTheSameEngine) {
  // ref:any against ref:any, the other engines only in A. The verdicts are not asserted: two
  // separate runs on a shared machine may differ by far more than any band (a run made here under
  // load timed the same ref:any conv at 12 ms and 0.47 ms); that is what `calibrate`'s recorded
  // noise floor is for. For the same reason the machine's conditions are accepted: a run flagged
  // busy (ctest's other tests beside it) would otherwise turn a regression into exit 2.
  const auto r = run_cli({"compare", full_path(), ref_path(), "--allow-different-conditions", "--json",
                          path("engine.json").string()});
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.out << r.err;
  const auto doc = read_json(path("engine.json"))["comparisons"][0];
  EXPECT_EQ(doc["summary"]["rows"], 2);
  for (const auto& row : doc["rows"]) {
    EXPECT_EQ(row["engine_a"], "ref:any");
    EXPECT_EQ(row["engine_b"], "ref:any");
  }
  const int rows_a = read_json(full_path())["summary"]["rows"];
  EXPECT_EQ(doc["summary"]["only_in_a"], rows_a - 2);
  EXPECT_EQ(doc["summary"]["only_in_b"], 0);
}

TEST_F(CompareCommand, InvalidatingMismatchExitsTwoUnlessAllowed) {
  auto doc = read_json(full_path());
  doc["metadata"]["options"]["cache_mode"] = "cold";
  const auto cold = path("cold.json");
  write_json(cold, doc);
  const auto r = run_cli({"compare", full_path(), cold.string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.out.find("cache mode (INVALIDATES the comparison): auto  ->  cold"), std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("--allow-mismatch"), std::string::npos) << r.err;
  const auto allowed = run_cli({"compare", full_path(), cold.string(), "--allow-mismatch"});
  EXPECT_EQ(allowed.exit_code, 0) << allowed.out << allowed.err;
}

TEST_F(CompareCommand, LibraryVersionViewWhenVersionsDiffer) {
  auto doc = read_json(full_path());
  doc["metadata"]["providers"]["onednn"]["version"] = "0.0.0-other";
  const auto other = path("other.json");
  write_json(other, doc);
  const auto r = run_cli({"compare", full_path(), other.string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("Library-version view (onednn)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("library onednn:"), std::string::npos) << r.out;
}

TEST_F(CompareCommand, UsageErrorsExitTwo) {
  const auto notjson = path("not.json");
  std::ofstream(notjson) << "{ not json";
  EXPECT_EQ(run_cli({"compare", full_path(), notjson.string()}).exit_code, 2);
  EXPECT_EQ(run_cli({"compare", full_path()}).exit_code, 2);
  EXPECT_EQ(run_cli({"compare", full_path(), full_path(), "--by", "nonsense"}).exit_code, 2);
  EXPECT_EQ(run_cli({"compare", full_path(), path("missing.json").string()}).exit_code, 2);
}

TEST_F(CompareCommand, ResultsCarryContentHashDataTypeAndPeaks) {
  const auto doc = read_json(full_path());
  for (const auto& g : doc["graphs"]) {
    EXPECT_EQ(g["content_hash"].get<std::string>().rfind("fnv1a64:", 0), 0u);
    EXPECT_EQ(g["data_type"], "float");
    for (const auto& row : g["results"])
      if (row["status"] == "success") {
        ASSERT_TRUE(row["peak"].is_object()) << row.dump();
        EXPECT_GT(row["peak"]["vector_flops"].get<double>(), 0);
        EXPECT_EQ(row["peak"]["source"].get<std::string>().rfind("cpu: ", 0), 0u);
      }
  }
}

TEST_F(CompareCommand, CsvOfRunAndOfReportAgree) {
  const auto from_report = path("report.csv");
  const auto r = run_cli({"report", full_path(), "--csv", from_report.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto report_csv = read_text(from_report);
  EXPECT_EQ(report_csv, read_text(path("full.csv")));
  const auto doc = read_json(full_path());
  EXPECT_EQ(std::count(report_csv.begin(), report_csv.end(), '\n'), doc["summary"]["rows"].get<int>() + 1);
  EXPECT_EQ(report_csv.rfind(
                "graph,graph_hash,graph_path,data_type,provider,engine_id,engine_name,plan,status,", 0),
            0u);
  EXPECT_NE(report_csv.find("conv_fwd_2d_nhwc_fp32,fnv1a64:"), std::string::npos);
}

TEST_F(CompareCommand, HtmlIsSelfContained) {
  const auto html = path("report.html");
  const auto r = run_cli({"report", full_path(), ref_path(), "--html", html.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto text = read_text(html);
  EXPECT_NE(text.find("id=\"dnnbench-data\""), std::string::npos);
  for (const char* network : {"http://", "https://", "<link", "src=", "@import", "fetch(", "XMLHttpRequest"})
    EXPECT_EQ(text.find(network), std::string::npos) << network;
  EXPECT_NE(text.find("\"compare\":{"), std::string::npos) << "two runs: a compare page";
}

// Headless Chromium (Debian's `chromium`, installed by scripts/setup): the page loads, its script
// ran to the end with no error, and the charts are in the DOM.
TEST_F(CompareCommand, HtmlRendersInHeadlessChromium) {
  if (std::getenv("DNNBENCH_NO_CHROMIUM")) GTEST_SKIP() << "DNNBENCH_NO_CHROMIUM is set";
  ASSERT_EQ(std::system("command -v chromium >/dev/null 2>&1"), 0)
      << "chromium is missing: run scripts/setup (or set DNNBENCH_NO_CHROMIUM=1 to skip this test)";
  const auto html = path("render.html");
  ASSERT_EQ(run_cli({"report", full_path(), ref_path(), "--html", html.string()}).exit_code, 0);
  const auto dom = path("dom.html"), log = path("chromium.log");
  const std::string command =
      "timeout 60 chromium --headless --no-sandbox --disable-gpu --no-first-run "
      "--user-data-dir=" +
      shell_quote((*dir_ / "profile").string()) +
      " --enable-logging=stderr --v=0 --virtual-time-budget=5000 --dump-dom " +
      shell_quote("file://" + html.string()) + " >" + shell_quote(dom.string()) + " 2>" +
      shell_quote(log.string());
  ASSERT_EQ(std::system(command.c_str()), 0) << read_text(log);
  const auto text = read_text(dom);
  EXPECT_NE(text.find("data-rendered=\"ok\""), std::string::npos) << read_text(log);
  EXPECT_EQ(text.find("data-error="), std::string::npos) << text.substr(0, 2000);
  for (const char* chart : {"class=\"chart roofline\"", "class=\"chart rank\"", "class=\"chart bars\"",
                            "class=\"chart samples\"", "class=\"chart compare\"", "<table>"})
    EXPECT_NE(text.find(chart), std::string::npos) << chart;
  const auto console = read_text(log);
  EXPECT_EQ(console.find("Uncaught"), std::string::npos) << console;
}

}  // namespace
}  // namespace dnnbench::testing
