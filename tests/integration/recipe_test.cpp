// Integration tests of --config recipes: the shipped examples, overrides by flags, relative
// paths, the engine matrix, and errors (exit code 2, file:line and key in the message).
#include <gtest/gtest.h>

#include "cli_runner.hpp"

namespace dnnbench::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

std::size_t count_files(const std::string& folder, const std::string& suffix) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(source_path(folder))) {
    const auto name = e.path().filename().string();
    if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      ++n;
  }
  return n;
}

TEST(Examples, SamplesRecipeRunsWithFlagsOverridingIt) {
  // Flags override the recipe: quick timing and our own output file.
  TempDir dir;
  const auto out = (dir / "r.json").string();
  const auto recipe = source_path("examples/samples-onednn.toml");
  const auto r = run_cli({"run", "--config", recipe, "--warmup", "0", "--iters", "2", "-o", out, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto doc = read_json(out);
  EXPECT_EQ(doc["metadata"]["options"]["recipe"], recipe);
  EXPECT_EQ(doc["metadata"]["options"]["warmup"], 0);
  EXPECT_EQ(doc["metadata"]["options"]["iters"], 2);
  EXPECT_EQ(doc["metadata"]["options"]["target_ci"], 0.02);  // from the recipe
  EXPECT_EQ(doc["metadata"]["providers"].size(), 1u);
  EXPECT_GT(doc["summary"]["graphs"].get<int>(), 60);  // graphs/samples, resolved from examples/
  EXPECT_GT(doc["summary"]["passed"].get<int>(), 60);
  EXPECT_EQ(doc["summary"]["errors"], 0);
  EXPECT_EQ(doc["summary"]["failed"], 0);
  for (const auto& g : doc["graphs"])
    for (const auto& row : g["results"]) {
      EXPECT_EQ(row["host_stats"].is_null() ? 2 : row["host_stats"]["n"].get<int>(), 2);
      EXPECT_EQ(row["provider"], "onednn");
    }
  EXPECT_FALSE(fs::exists(source_path("results-samples-onednn.json.tmp")));
}

TEST(Examples, PerfRecipesResolveTheirGraphsAndMatrix) {
  // Perf-sized graphs take minutes on a CPU, and a dry run writes no results: a graph-size limit of
  // one byte refuses every graph after it was found, read and parsed, so that the results show
  // the recipe's paths, filters and options without running anything.
  TempDir dir;
  const auto out = (dir / "r.json").string();
  const std::vector<std::string> refuse_all = {"--max-graph-bytes", "1", "-o", out, "-q"};
  auto args = std::vector<std::string>{"run", "--config", source_path("examples/resnet50-perf.toml")};
  args.insert(args.end(), refuse_all.begin(), refuse_all.end());
  auto r = run_cli(args);
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  auto doc = read_json(out);
  EXPECT_EQ(doc["summary"]["graphs"].get<std::size_t>(), count_files("graphs/perf/resnet50", "_fp32.json"));
  for (const auto& g : doc["graphs"])
    EXPECT_NE(g["error_message"].get<std::string>().find("over the limit"), std::string::npos) << g.dump();
  EXPECT_EQ(doc["summary"]["filtered"], 0);
  const auto matrix = doc["metadata"]["options"]["engine_matrix"];
  ASSERT_EQ(matrix.size(), 2u);
  EXPECT_EQ(matrix[0]["id"], "jit:avx2");
  EXPECT_EQ(matrix[1]["label"], "im2col + GEMM");
  EXPECT_EQ(doc["metadata"]["options"]["providers"], json({"onednn"}));  // from the matrix

  args = {"run", "--config", source_path("examples/llm-gemm.toml")};
  args.insert(args.end(), refuse_all.begin(), refuse_all.end());
  r = run_cli(args);
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  doc = read_json(out);
  EXPECT_EQ(doc["summary"]["graphs"].get<std::size_t>(), count_files("graphs/perf/gemm", ".json"));
  EXPECT_EQ(doc["metadata"]["options"]["skip_engines"], json({"ref:any"}));
  EXPECT_EQ(doc["metadata"]["options"]["iters"], 20);
}

TEST(Recipes, RelativePathsFollowTheRecipeAndTheMatrixRestrictsAndLabels) {
  TempDir dir;
  fs::create_directories(dir / "suite/graphs");
  fs::copy_file(source_path("graphs/samples/conv_fwd_2d_nchw_fp32.json"), dir / "suite/graphs/conv.json");
  write_file(dir / "suite/recipe.toml", R"(version = 1
graphs = ["graphs"]
output = "out/results.json"
warmup = 0
iters = 2
[[engines]]
provider = "onednn"
id = "ref:any"
label = "reference impl"
[[engines]]
provider = "onednn"
id = "no-such-engine"
)");
  fs::create_directories(dir / "suite/out");  // dnnbench makes no folder it is not asked for
  const auto r = run_cli({"run", "--config", (dir / "suite/recipe.toml").string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto doc = read_json(dir / "suite/out/results.json");
  ASSERT_EQ(doc["graphs"].size(), 1u);
  const auto rows = doc["graphs"][0]["results"];
  ASSERT_EQ(rows.size(), 2u) << rows.dump(1);
  EXPECT_EQ(rows[0]["engine_id"], "ref:any");
  EXPECT_EQ(rows[0]["engine_label"], "reference impl");
  EXPECT_EQ(rows[0]["status"], "success");
  EXPECT_EQ(rows[1]["engine_id"], "no-such-engine");
  EXPECT_EQ(rows[1]["status"], "skipped");
  EXPECT_TRUE(rows[1]["engine_label"].is_null());
}

TEST(Recipes, CommandLineEngineReplacesTheMatrixAndGraphsReplaceRecipeGraphs) {
  TempDir dir;
  write_file(dir / "r.toml", R"(version = 1
graphs = ["nonexistent.json"]
warmup = 0
iters = 2
[[engines]]
provider = "onednn"
id = "ref:any"
)");
  const auto out = (dir / "r.json").string();
  const auto r =
      run_cli({"run", "--config", (dir / "r.toml").string(), "-g",
               source_path("graphs/samples/matmul_plain_fp32.json"), "--engine", "gemm:jit", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto doc = read_json(out);
  ASSERT_EQ(doc["graphs"].size(), 1u);
  const auto rows = doc["graphs"][0]["results"];
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["engine_id"], "gemm:jit");
}

TEST(Recipes, ErrorsExitTwoAndNameFileLineAndKey) {
  TempDir dir;
  struct Case {
    std::string text, expected;
  };
  const std::vector<Case> cases = {
      {"graphs = [\"a.json\"]\n", "missing key 'version'"},
      {"version = 3\n", "recipe version 1, got 3"},
      {"version = 1\ngraphs = [\"a.json\"]\nwarmpu = 2\n", ":3:1: unknown key 'warmpu'"},
      {"version = 1\ngraphs = [\"a.json\"]\niters = \"many\"\n",
       ":3:9: key 'iters': expected an integer, got a string"},
      {"version = 1\ngraphs = [\"a.json\"]\nseed = -4\n", "key 'seed': must be >= 0"},
      {"version = 1\ngraphs = [\"a.json\"]\n[[engines]]\nid = \"x\"\n", "needs `provider`"},
      {"version = 1\ngraphs = [\"a.json\"\n", "not valid TOML"},
      {"version = 1\ngraphs = [\"a.json\"]\nproviders = [\"nope\"]\n", "unknown provider 'nope'"},
      {"version = 1\n", "no graphs"},
  };
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const auto path = dir / ("r" + std::to_string(k) + ".toml");
    write_file(path, cases[k].text);
    const auto r = run_cli({"run", "--config", path.string()});
    EXPECT_EQ(r.exit_code, 2) << cases[k].text << r.out << r.err;
    EXPECT_NE(r.err.find(cases[k].expected), std::string::npos) << cases[k].text << " -> " << r.err;
    if (k >= 2 && k <= 4) {
      EXPECT_NE(r.err.find(path.string() + ":"), std::string::npos) << r.err;
    }
  }
  const auto missing = run_cli({"run", "--config", (dir / "absent.toml").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("cannot open the recipe"), std::string::npos) << missing.err;
}

// The cuBLASLt provider by name, from a recipe's provider list and from --provider: built
// wherever the CUDA toolkit is; on a machine without a GPU its rows are skipped with the reason,
// with one they run cuBLASLt's algos.
TEST(Recipes, KnowTheCublasLtProvider) {
  const auto listed = run_cli({"list-providers"}).out;
  const auto line_at = listed.find("cublaslt ");
  if (line_at == std::string::npos) GTEST_SKIP() << "the cublaslt provider is not built (no CUDA toolkit)";
  const auto line = listed.substr(line_at, listed.find('\n', line_at) - line_at);
  const bool no_device = line.find("not usable here: no CUDA device") != std::string::npos;
  TempDir dir;
  write_file(dir / "lt.toml", "version = 1\ngraphs = [\"" + source_path("graphs/samples/matmul_fp16.json") +
                                  "\"]\nproviders = [\"cublaslt\"]\nwarmup = 0\niters = 2\n");
  const auto out = (dir / "r.json").string();
  auto r = run_cli({"run", "--config", (dir / "lt.toml").string(), "-o", out, "-q"});
  ASSERT_NE(r.exit_code, 2) << r.out << r.err;
  auto doc = read_json(out);
  EXPECT_EQ(doc["metadata"]["options"]["providers"], json({"cublaslt"}));
  for (const auto& row : doc["graphs"][0]["results"]) {
    EXPECT_EQ(row["provider"], "cublaslt");
    if (no_device) {
      EXPECT_EQ(row["status"], "skipped") << row.dump();
      EXPECT_NE(row["skip_reason"].get<std::string>().find("no CUDA device"), std::string::npos)
          << row.dump();
    } else {
      EXPECT_EQ(row["status"], "success") << row.dump();
      EXPECT_EQ(row["engine_id"].get<std::string>().rfind("algo", 0), 0u) << row.dump();
    }
  }

  r = run_cli({"run", "-g", source_path("graphs/samples/matmul_fp16.json"), "--provider", "cublaslt",
               "--warmup", "0", "--iters", "2", "-o", out, "-q"});
  ASSERT_NE(r.exit_code, 2) << r.out << r.err;
  doc = read_json(out);
  ASSERT_FALSE(doc["graphs"][0]["results"].empty());
  EXPECT_EQ(doc["graphs"][0]["results"][0]["provider"], "cublaslt");
}

}  // namespace
}  // namespace dnnbench::testing
