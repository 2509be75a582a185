// The results JSON validates against docs/results.schema.json (with and without --oracle, with
// a graph that fails to load), checked by an independent validator (Python jsonschema).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace dnnbench::testing {
namespace {

bool have_jsonschema() {
  return std::system("/usr/bin/python3 -c 'import jsonschema' >/dev/null 2>&1") == 0;
}

void expect_valid(const std::filesystem::path& results) {
  const std::string command =
      "/usr/bin/python3 -c 'import json, sys, jsonschema; "
      "jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' " +
      shell_quote(results.string()) + " " + shell_quote(source_path("docs/results.schema.json")) + " 2>&1";
  const int status = std::system(command.c_str());
  EXPECT_EQ(status, 0) << "results do not match the schema: " << results;
}

TEST(ResultsSchema, RunsValidateAgainstTheSchema) {
  if (!have_jsonschema()) GTEST_SKIP() << "python3-jsonschema is not installed";
  TempDir dir;
  std::ofstream(dir / "broken.json") << "{\"name\": ";
  const auto plain = (dir / "plain.json").string();
  const auto oracle = (dir / "oracle.json").string();
  const std::string graphs = source_path("graphs/samples/conv_fwd_2d_nchw_fp32.json") + "," +
                             source_path("graphs/samples/unsupported_block_scale_quantize.json") + "," +
                             (dir / "broken.json").string();
  run_cli({"run", "-q", "-g", graphs, "--warmup", "0", "--iters", "2", "-o", plain});
  run_cli({"run", "-q", "-g", graphs, "--warmup", "1", "--iters", "3", "--oracle", "-o", oracle});
  const auto cold = (dir / "cold.json").string();
  run_cli({"run", "-q", "-g", graphs, "--iters", "2", "--cache-mode", "cold", "--latency", "--save-samples",
           "-o", cold});
  expect_valid(plain);
  expect_valid(oracle);
  expect_valid(cold);
  // A GPU row's timing (no GPU here: a CPU row's, as a device run writes it): rotating at the
  // default, producer with its kept bytes.
  auto doc = nlohmann::json::parse(std::ifstream(plain));
  bool edited = false;
  for (auto& graph : doc["graphs"])
    for (auto& row : graph["results"])
      if (!edited && row["timing"].is_object() && row["timing"]["cache_fit"].is_object()) {
        row["timing"]["cache_mode"] = "producer";
        row["timing"]["cache_flush"] =
            "rotating over 9 sets of the bound tensors but the inputs a producer has just written";
        row["timing"]["cache_fit"]["rotation_copies"] = 9;
        row["timing"]["cache_fit"]["kept_bytes"] = 4096;
        edited = true;
      }
  ASSERT_TRUE(edited);
  const auto device = dir / "device.json";
  std::ofstream(device) << doc.dump();
  expect_valid(device);
}

}  // namespace
}  // namespace dnnbench::testing
