// Hostile input through the real binary: the memory budget refuses a graph with its numbers and
// the suite goes on; a deeply nested file and an archive with a name that is not UTF-8 give
// one-line errors and valid JSON results.
#include <gtest/gtest.h>

#include "archive_writer.hpp"
#include "cli_runner.hpp"

namespace dnnbench::testing {
namespace {

using nlohmann::json;

TEST(HostileInput, GraphOverTheMemoryBudgetIsRefusedWithTheNumbersAndTheSuiteGoesOn) {
  TempDir dir;
  const auto out = (dir / "r.json").string();
  // conv_fwd_2d_nchw_fp32 needs more than 64 KiB; pointwise_relu far less.
  const auto r = run_cli(
      run_args({"-g", source_path("graphs/samples/conv_fwd_2d_nchw_fp32.json"), "-g",
                source_path("graphs/samples/pointwise_relu.json"), "--max-memory", "64KiB", "-o", out}));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto doc = json::parse(read_text(out));
  ASSERT_EQ(doc["graphs"].size(), 2u);
  EXPECT_EQ(doc["graphs"][0]["status"], "error");
  const auto message = doc["graphs"][0]["error_message"].get<std::string>();
  EXPECT_NE(message.find("conv_fwd_2d_nchw_fp32.json: the graph needs "), std::string::npos) << message;
  EXPECT_NE(message.find("of host memory (inputs "), std::string::npos) << message;
  EXPECT_NE(message.find("over the allowed 0.06 MiB (65536 bytes) (--max-memory)"), std::string::npos)
      << message;
  EXPECT_EQ(doc["graphs"][1]["status"], "ok");
  EXPECT_EQ(doc["metadata"]["options"]["max_memory"], 65536);
}

TEST(HostileInput, MaxMemoryTakesUnitsAndRefusesNonsense) {
  const auto ok =
      run_cli(run_args({"-g", source_path("graphs/samples/pointwise_relu.json"), "--max-memory", "1GiB"}));
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  const auto bad =
      run_cli(run_args({"-g", source_path("graphs/samples/pointwise_relu.json"), "--max-memory", "lots"}));
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
}

TEST(HostileInput, DeeplyNestedFileIsAOneLineErrorNotACrash) {
  TempDir dir;
  std::ofstream(dir / "deep.json") << "{\"name\": \"deep\", \"junk\": " << std::string(200000, '[')
                                   << std::string(200000, ']') << "}";
  const auto out = (dir / "r.json").string();
  const auto r = run_cli(run_args({"-g", (dir / "deep.json").string(), "-o", out}));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto doc = json::parse(read_text(out));
  const auto message = doc["graphs"][0]["error_message"].get<std::string>();
  EXPECT_NE(message.find("nested more than 64 levels deep"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

TEST(HostileInput, ArchiveEntryNamesThatAreNotUtf8StillGiveValidJsonResults) {
  TempDir dir;
  const auto archive = dir / "names.tar";
  write_archive(archive, ArchiveFormat::tar,
                {file_member("caf\xe9\n.json", "{}"),
                 file_member("ok.json", read_text(source_path("graphs/samples/pointwise_relu.json")))});
  const auto out = (dir / "r.json").string();
  const auto r = run_cli(run_args({"-g", archive.string(), "-o", out}));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto doc = json::parse(read_text(out));  // throws if the file is not valid UTF-8 JSON
  ASSERT_EQ(doc["graphs"].size(), 2u);
  EXPECT_EQ(doc["graphs"][0]["status"], "ok");
  const auto message = doc["graphs"][1]["error_message"].get<std::string>();
  EXPECT_NE(message.find("entry 'caf\\xE9\\n.json': refused"), std::string::npos) << message;
}

}  // namespace
}  // namespace dnnbench::testing
