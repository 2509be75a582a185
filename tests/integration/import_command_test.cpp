// Integration tests of `dnnbench import`, `export --miopen` and `run -g` on import sources: a
// MIOpenDriver command file and a benchdnn batch file, run on oneDNN, with their outputs and exit
// codes (ONNX models: tests/onnx/onnx_import_command_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <tuple>

#include "cli_runner.hpp"

namespace dnnbench::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

// Every row of the run passed or was skipped with a reason; no graph is an error.
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

const std::string kMiopenLines =
    "# two ResNet-style layers, one repeated\n"
    "conv -n 2 -c 8 -H 8 -W 8 -k 16 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 1 -F 1 -t 1\n"
    "\n"
    "3 conv -n 2 -c 16 -H 8 -W 8 -k 16 -y 1 -x 1 -F 1 -I NHWC -O NHWC -f NHWC\n"
    "conv -n 2 -c 16 -H 8 -W 8 -k 16 -y 1 -x 1 -F 1 -I NHWC -O NHWC -f NHWC\n"
    "bnorm -n 2 -c 16 -H 8 -W 8 -m 1 --forw 2\n"
    "pool -n 2 -c 16 -H 8 -W 8 -y 2 -x 2 -u 2 -v 2 -m max -F 1\n"
    "softmax -n 2 -c 16\n";

TEST(ImportCommand, MiopenDriverFileImportsWithCountsAndRuns) {
  TempDir dir;
  write_file(dir / "nets.txt", kMiopenLines);
  const auto out = dir / "imported";
  const auto r = run_cli({"import", (dir / "nets.txt").string(), "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("imported 7 layers from 1 source as 4 distinct graphs"), std::string::npos) << r.out;
  const json manifest = read_json(out / "manifest.json");
  EXPECT_EQ(manifest["format"], "dnnbench-import-manifest");
  ASSERT_EQ(manifest["graphs"].size(), 4u);
  EXPECT_EQ(manifest["graphs"][1]["count"], 4);
  EXPECT_EQ(manifest["graphs"][1]["sources"],
            json({(dir / "nets.txt").string() + ":4", (dir / "nets.txt").string() + ":5"}));
  EXPECT_GT(manifest["graphs"][0]["flops"].get<double>(), 0);
  ASSERT_EQ(manifest["not_imported"].size(), 1u);
  EXPECT_EQ(manifest["not_imported"][0]["op"], "softmax");
  for (const auto& g : manifest["graphs"]) EXPECT_TRUE(fs::exists(out / g["file"].get<std::string>()));

  // run -g on the command file itself: converted on the fly, results name the source line.
  const auto results = dir / "run.json";
  const auto run =
      run_cli(run_args({"-g", (dir / "nets.txt").string(), "--provider", "onednn", "-o", results.string()}));
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  const json doc = read_json(results);
  ASSERT_EQ(doc["graphs"].size(), 4u);
  EXPECT_EQ(doc["graphs"][0]["graph_path"], (dir / "nets.txt").string() + ":2");
  expect_all_passed_or_skipped(doc);
  // The model summary: every layer counted, the 4 repeated 1x1 convs as one graph x 4.
  EXPECT_NE(run.out.find("Model summary, onednn: 7 layers timed, 0 without a time"), std::string::npos)
      << run.out;
  ASSERT_EQ(doc["model_summary"].size(), 1u);
  const json& model = doc["model_summary"][0];
  EXPECT_EQ(model["layers_timed"], 7);
  double total = 0;
  for (const auto& layer : model["layers"])
    total += layer["count"].get<double>() * layer["pick_ms"].get<double>();
  EXPECT_NEAR(model["pick_total_ms"].get<double>(), total, 1e-9 * (1 + total));
  EXPECT_LE(model["best_total_ms"].get<double>(), model["pick_total_ms"].get<double>());

  // run -g on the import folder (its manifest) runs the same graphs under the same names.
  const auto again = run_cli(run_args({"-g", out.string(), "--provider", "onednn", "-o", results.string()}));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(read_json(results)["graphs"][3]["graph_path"], (dir / "nets.txt").string() + ":7");
}

// list-engines takes the inputs run takes: a source's layers are listed by their file:line.
TEST(ImportCommand, ListEnginesConvertsSources) {
  TempDir dir;
  write_file(dir / "nets.txt", kMiopenLines);
  const auto r = run_cli({"list-engines", "-g", (dir / "nets.txt").string(), "--provider", "reference"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(" + (dir / "nets.txt").string() + ":2)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(" + (dir / "nets.txt").string() + ":7)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("reference"), std::string::npos) << r.out;
  // A bad line is the same one-line error as for run, with the file and the line.
  write_file(dir / "bad.txt", "conv -n 2 --bogus 3\n");
  const auto bad = run_cli({"list-engines", "-g", (dir / "bad.txt").string()});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find((dir / "bad.txt").string() + ":1: unknown flag --bogus"), std::string::npos)
      << bad.err;
}

TEST(ImportCommand, BenchdnnBatchFileImportsAndRuns) {
  TempDir dir;
  write_file(dir / "shapes", "mb2ic8ih8oc8kh3ph1n\"res2\"\nmb2ic8ih8oc16kh1sh2n\"down\"\n");
  write_file(dir / "batch.txt",
             "--conv --dir=FWD_D --batch=shapes\n"
             "--dir=FWD_B mb2ic8ih8oc8kh3ph1\n"
             "--matmul --bia_dt=f32 --attr-post-ops=relu 16x32:32x24\n"
             "--lnorm --dir=FWD_I 4x8x64\n"
             "--pool --alg=avg_np mb2ic4ih8kh2sh2\n"
             "--bnorm --dir=FWD_I mb2ic8ih4\n");
  const auto out = dir / "imported";
  const auto r = run_cli({"import", (dir / "batch.txt").string(), "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_json(out / "manifest.json")["graphs"].size(), 7u);
  const auto results = dir / "run.json";
  const auto run =
      run_cli(run_args({"-g", (dir / "batch.txt").string(), "--provider", "onednn", "-o", results.string()}));
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  const json doc = read_json(results);
  ASSERT_EQ(doc["graphs"].size(), 7u);
  EXPECT_EQ(doc["graphs"][0]["graph_path"], (dir / "shapes").string() + ":1");
  expect_all_passed_or_skipped(doc);
}

TEST(ImportCommand, BadLinesAreOneClearLineAndExitOne) {
  TempDir dir;
  write_file(dir / "nets.txt", "conv -n 2 -c 8\nconv -n 2 --bogus 3\n");
  const auto r = run_cli({"import", (dir / "nets.txt").string(), "-o", (dir / "out").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "dnnbench: " + (dir / "nets.txt").string() + ":2: unknown flag --bogus for MIOpenDriver conv\n");
  // In a run, the source becomes one graph error and the suite goes on.
  const auto results = dir / "run.json";
  const auto run = run_cli(
      run_args({"-g", (dir / "nets.txt").string() + "," + source_path("graphs/samples/pointwise_relu.json"),
                "--provider", "onednn", "-o", results.string()}));
  EXPECT_EQ(run.exit_code, 1);
  const json doc = read_json(results);
  ASSERT_EQ(doc["graphs"].size(), 2u);
  EXPECT_EQ(doc["graphs"][0]["status"], "error");
  EXPECT_NE(doc["graphs"][0]["error_message"].dump().find("nets.txt:2"), std::string::npos)
      << doc["graphs"][0].dump();
  EXPECT_EQ(doc["graphs"][1]["status"], "ok");
  // Not an import source at all.
  write_file(dir / "notes.txt", "hello world\n");
  const auto other = run_cli({"import", (dir / "notes.txt").string(), "-o", (dir / "out").string()});
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_NE(other.err.find("not an import source"), std::string::npos);
}

// The ONNX import options take only the values they name: one clear line, exit 2, nothing written.
TEST(ImportCommand, BadImportOptionValuesAreUsageErrors) {
  TempDir dir;
  const auto model = source_path("graphs/models/resnet50.onnx");
  for (const auto& [option, value, expected] :
       {std::tuple{"--dtype", "int8", "dnnbench: --dtype: int8 not in {half,bfloat16,float}"},
        std::tuple{"--layout", "nchwx", "dnnbench: --layout: nchwx not in {nchw,nhwc}"}}) {
    const auto out = dir / (std::string("out") + option);
    const auto r = run_cli({"import", model, "-o", out.string(), option, value});
    EXPECT_EQ(r.exit_code, 2) << option << " " << value << ": " << r.err;
    EXPECT_EQ(r.err.rfind(expected, 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(out)) << option;
  }
}

TEST(ImportCommand, ExportMiopenRoundTrip) {
  TempDir dir;
  const std::string line =
      "conv -n 2 -c 8 -H 8 -W 8 -k 16 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -l 1 -j 1 -m conv -g 2 -F 1 -t 1";
  write_file(dir / "one.txt", line + "\n");
  ASSERT_EQ(run_cli({"import", (dir / "one.txt").string(), "-o", (dir / "a").string()}).exit_code, 0);
  const auto exported =
      run_cli({"export", "--miopen", "-g", (dir / "a").string() + "/0001_one_l1_conv_fwd.json"});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_EQ(exported.out, line + "\n");
  const auto refused =
      run_cli({"export", "--miopen", "-g", source_path("graphs/samples/matmul_plain_fp32.json")});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("cannot write a MIOpenDriver line"), std::string::npos);
}

}  // namespace
}  // namespace dnnbench::testing
