// Integration tests of `dnnbench import` and `run -g` on ONNX models written by the test (small
// CNN, transformer block), run on oneDNN.
#include <gtest/gtest.h>

#include "../integration/cli_runner.hpp"
#include "../support/onnx_builder.hpp"

namespace dnnbench::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

void expect_all_passed_or_skipped(const json& doc) {
  for (const auto& g : doc["graphs"]) {
    EXPECT_EQ(g["status"], "ok") << g.dump();
    for (const auto& r : g["results"]) {
      if (r["status"] == "skipped") {
        EXPECT_FALSE(r["skip_reason"].get<std::string>().empty());
        continue;
      }
      EXPECT_EQ(r["status"], "success") << g["graph_path"] << " " << r.dump();
      EXPECT_TRUE(r["passed"].get<bool>()) << g["graph_path"] << " " << r.dump();
    }
  }
}

TEST(ImportCommand, OnnxModelImportsAndRunsOnOneDnn) {
  TempDir dir;
  const auto model = dir / "cnn.onnx";
  write_small_cnn(model);
  const auto missing = run_cli({"import", model.string(), "-o", (dir / "out").string()});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("--dim N=VALUE"), std::string::npos) << missing.err;
  const auto r = run_cli({"import", model.string(), "-o", (dir / "out").string(), "--dim", "N=1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("imported 10 layers from 1 source as 9 distinct graphs"), std::string::npos) << r.out;
  const auto results = dir / "run.json";
  const auto run = run_cli(
      run_args({"-g", model.string(), "--dim", "N=1", "--provider", "onednn", "-o", results.string()}));
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  const json doc = read_json(results);
  ASSERT_EQ(doc["graphs"].size(), 9u);
  EXPECT_EQ(doc["graphs"][0]["graph_path"], model.string() + ":conv1+relu1");
  expect_all_passed_or_skipped(doc);
  EXPECT_EQ(doc["model_summary"][0]["layers_timed"], 10);
}

TEST(ImportCommand, TransformerBlockSdpaRowsAreSkipped) {
  TempDir dir;
  const auto model = dir / "block.onnx";
  write_transformer_block(model);
  const auto results = dir / "run.json";
  const auto run = run_cli(run_args({"-g", model.string(), "--dim", "B=1", "--dim", "S=8", "--provider",
                                     "onednn", "-o", results.string()}));
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  const json doc = read_json(results);
  ASSERT_EQ(doc["graphs"].size(), 6u);
  expect_all_passed_or_skipped(doc);
  bool sdpa_skipped = false;
  for (const auto& g : doc["graphs"])
    if (g["graph_path"].get<std::string>().find(":scores+") != std::string::npos)
      for (const auto& row : g["results"]) sdpa_skipped = sdpa_skipped || row["status"] == "skipped";
  EXPECT_TRUE(sdpa_skipped);
  // The SDPA layer has no time: the summary says so instead of leaving it out silently.
  EXPECT_EQ(doc["model_summary"][0]["layers_untimed"], 1);
  EXPECT_EQ(doc["model_summary"][0]["layers_timed"], 10);
}
}  // namespace
}  // namespace dnnbench::testing
