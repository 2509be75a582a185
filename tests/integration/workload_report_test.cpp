// Integration tests of the workload report (docs/results.md): `run -g` on a folder of graphs with
// a collection manifest of several models, on oneDNN, with and without --oracle; the report in
// the console, the JSON (validated by the schema test's rules: its keys), the HTML data and the
// diff that `compare` prints between two runs; and the shipped collection, graphs/workloads,
// loads whole.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>

#include "cli_runner.hpp"

namespace dnnbench::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Three sample graphs as a collection of two models: the conv occurs 3 times in `cnn` and once
// in `mixed`, the matmul twice in `mixed`, the layer norm once in `mixed`.
fs::path write_collection(const TempDir& dir) {
  const auto folder = dir / "collection";
  fs::create_directories(folder);
  const std::vector<std::pair<std::string, json>> graphs = {
      {"conv_fwd_2d_nhwc_fp32.json", {{"cnn", {{"count", 3}}}, {"mixed", {{"count", 1}}}}},
      {"matmul_plain_fp32.json", {{"mixed", {{"count", 2}, {"layers", {"/mm1", "/mm2"}}}}}},
      {"layernorm_inference.json", {{"mixed", {{"count", 1}}}}},
  };
  json entries = json::array();
  for (const auto& [file, models] : graphs) {
    fs::copy_file(source_path("graphs/samples/" + file), folder / file);
    std::int64_t count = 0;
    for (const auto& [name, m] : models.items()) count += m["count"].get<std::int64_t>();
    const std::string first = models.begin().key();
    entries.push_back({{"file", file},
                       {"name", file},
                       {"count", count},
                       {"sources", {first + ":" + file}},
                       {"models", models}});
  }
  std::ofstream(folder / "manifest.json") << json{
      {"format", "dnnbench-import-manifest"},
      {"version", 1},
      {"inputs", {"cnn", "mixed"}},
      {"graphs", entries}}.dump(1);
  return folder;
}

// Validates against docs/results.schema.json with Python's jsonschema, as schema_test.cpp does;
// false when the validator is not installed.
bool validated_by_schema(const fs::path& results) {
  if (std::system("/usr/bin/python3 -c 'import jsonschema' >/dev/null 2>&1") != 0) return false;
  const std::string command =
      "/usr/bin/python3 -c 'import json, sys, jsonschema; "
      "jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' " +
      shell_quote(results.string()) + " " + shell_quote(source_path("docs/results.schema.json")) + " 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << "results do not match the schema: " << results;
  return true;
}

const json& group(const json& provider, const std::string& kind, const std::string& name) {
  for (const auto& g : provider["groups"])
    if (g["kind"] == kind && g["name"] == name) return g;
  throw std::runtime_error("no group " + kind + " " + name + " in " + provider.dump());
}

TEST(WorkloadReport, DryRunCountsGraphsAndModels) {
  TempDir dir;
  const auto folder = write_collection(dir);
  const auto r = run_cli({"run", "-g", folder.string(), "--dry-run", "--provider", "onednn"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("Workloads: 3 distinct graphs (7 layers) from 2 models"), std::string::npos) << r.out;
}

// Some files of a collection named on their own keep what the whole folder gives them (the
// manifest's name, count and models), so a subset has its workload report too; a file no
// manifest lists stays a plain graph.
TEST(WorkloadReport, FilesOfACollectionNamedOnTheirOwnKeepTheirModels) {
  TempDir dir;
  const auto folder = write_collection(dir);
  const auto plain = dir / "plain.json";
  fs::copy_file(source_path("graphs/samples/pointwise_relu.json"), plain);
  const auto r = run_cli({"run", "-g",
                          (folder / "conv_fwd_2d_nhwc_fp32.json").string() + "," +
                              (folder / "matmul_plain_fp32.json").string() + "," + plain.string(),
                          "--dry-run", "--provider", "onednn"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Workloads: 2 distinct graphs (6 layers) from 2 models"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("would run  cnn:conv_fwd_2d_nhwc_fp32.json"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("would run  " + plain.string()), std::string::npos) << r.out;
}

TEST(WorkloadReport, WithoutOracleModelTimePerFamilyAndModel) {
  TempDir dir;
  const auto folder = write_collection(dir);
  const auto out = dir / "r.json";
  const auto r = run_cli(run_args({"-g", folder.string(), "--provider", "onednn", "-o", out.string()}));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("Workload report, onednn"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("model mixed"), std::string::npos) << r.out;
  const auto doc = read_json(out);
  EXPECT_EQ(doc["layer_models"]["cnn:conv_fwd_2d_nhwc_fp32.json"], json({{"cnn", 3}, {"mixed", 1}}));
  ASSERT_EQ(doc["workload_report"].size(), 1u);
  const auto& p = doc["workload_report"][0];
  EXPECT_EQ(p["provider"], "onednn");
  EXPECT_FALSE(p["oracle"].get<bool>());
  EXPECT_EQ(group(p, "all", "all")["layers"], 7);
  EXPECT_EQ(group(p, "family", "conv_fwd")["layers"], 4);
  EXPECT_EQ(group(p, "family", "matmul")["layers"], 2);
  EXPECT_EQ(group(p, "family", "norm")["graphs"], 1);
  EXPECT_EQ(group(p, "model", "cnn")["layers"], 3);
  EXPECT_EQ(group(p, "model", "mixed")["layers"], 4);
  EXPECT_TRUE(group(p, "all", "all")["oracle"].is_null());
  // Model time = Σ count × the pick's median, the same figure the model summary sums.
  double total = 0;
  for (const auto& layer : doc["model_summary"][0]["layers"])
    total += layer["count"].get<double>() * layer["pick_ms"].get<double>();
  EXPECT_NEAR(group(p, "all", "all")["pick_total_ms"].get<double>(), total, 1e-9 * (1 + total));
  validated_by_schema(out);
}

TEST(WorkloadReport, OracleShareOfBeatenPicksInConsoleJsonHtmlAndCompare) {
  TempDir dir;
  const auto folder = write_collection(dir);
  const auto a = dir / "a.json", b = dir / "b.json";
  for (const auto& out : {a, b}) {
    const auto r =
        run_cli(run_args({"-g", folder.string(), "--provider", "onednn", "--oracle", "--max-engines", "3",
                          "--oracle-max-plans", "4", "--oracle-max-seconds", "2", "-o", out.string()}));
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("Workload report, onednn"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("the library's pick against the best plan measured"), std::string::npos) << r.out;
  }
  const auto doc = read_json(a);
  const auto& p = doc["workload_report"][0];
  EXPECT_TRUE(p["oracle"].get<bool>());
  const auto all = group(p, "all", "all")["oracle"];
  // Every graph has a graph regret (the pick against the best plan measured), so all are judged.
  EXPECT_EQ(all["graphs_judged"], 3);
  EXPECT_GE(all["graphs_beaten"].get<int>(), 0);
  EXPECT_LE(all["graphs_beaten"].get<int>(), 3);
  const double share = all["share_beaten"].get<double>();
  EXPECT_NEAR(share, all["graphs_beaten"].get<double>() / 3, 1e-12);
  EXPECT_GE(all["time_saved_share"].get<double>(), 0);
  EXPECT_LT(all["time_saved_share"].get<double>(), 1);
  EXPECT_EQ(group(p, "model", "cnn")["oracle"]["layers_judged"], 3);
  validated_by_schema(a);

  const auto html = dir / "report.html";
  ASSERT_EQ(run_cli({"report", a.string(), "--html", html.string()}).exit_code, 0);
  const auto page = read_text(html);
  EXPECT_NE(page.find("\"workload\":[{"), std::string::npos);
  EXPECT_NE(page.find("id=\"workloads\""), std::string::npos);

  const auto cmp_json = dir / "cmp.json";
  const auto c = run_cli(
      {"compare", a.string(), b.string(), "--allow-different-conditions", "--json", cmp_json.string()});
  ASSERT_NE(c.exit_code, 2) << c.err;
  EXPECT_NE(c.out.find("Workload report, A onednn"), std::string::npos) << c.out;
  const auto cmp = read_json(cmp_json).at("comparisons").at(0);
  ASSERT_FALSE(cmp.at("workload_diff").empty()) << cmp.dump().substr(0, 400);
  EXPECT_EQ(cmp["workload_diff"][0]["kind"], "all");
  EXPECT_EQ(cmp["workload_diff"][0]["a"]["oracle"]["graphs_judged"], 3);
  EXPECT_EQ(cmp["workload_diff"][0]["b"]["oracle"]["graphs_judged"], 3);
}

// The shipped real-workload collection (graphs/workloads, docs/import.md) loads whole in a dry
// run: at least 1000 distinct graphs, none failing to load or repeated, from model variants of at
// least 10 real models (the manifest's `models[].model`).
TEST(WorkloadReport, ShippedCollectionLoads) {
  const auto folder = source_path("graphs/workloads");
  const auto r = run_cli({"run", "-q", "-g", folder, "--dry-run", "--provider", "reference"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto at = r.out.find("Workloads: ");
  ASSERT_NE(at, std::string::npos) << r.out.substr(r.out.size() > 2000 ? r.out.size() - 2000 : 0);
  long graphs = 0, layers = 0, variants = 0;
  ASSERT_EQ(std::sscanf(r.out.c_str() + at, "Workloads: %ld distinct graphs (%ld layers) from %ld models",
                        &graphs, &layers, &variants),
            3)
      << r.out.substr(at, 200);
  EXPECT_GE(graphs, 1000);
  EXPECT_GT(layers, graphs);
  EXPECT_NE(r.out.find("(0 failed to load)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("duplicate"), std::string::npos) << "the collection holds each graph once";
  const auto manifest = read_json(fs::path(folder) / "manifest.json");
  std::set<std::string> models;
  for (const auto& m : manifest.at("models")) models.insert(m.at("model").get<std::string>());
  EXPECT_GE(models.size(), 10u);
  EXPECT_EQ(static_cast<long>(manifest.at("models").size()), variants);
}

}  // namespace
}  // namespace dnnbench::testing
