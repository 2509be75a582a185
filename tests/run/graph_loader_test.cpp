// Loading suite inputs: duplicates by canonical content, --op filtering, errors.
#include "run/graph_loader.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace dnnbench {
namespace {

namespace fs = std::filesystem;

std::string relu_named(const std::string& name) {
  std::ifstream in(std::string(DNNBENCH_SOURCE_DIR) + "/graphs/samples/pointwise_relu.json");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  const std::string key = "\"name\": \"pointwise_relu\"";
  text.replace(text.find(key), key.size(), "\"name\": \"" + name + "\"");
  return text;
}

TEST(CanonicalContent, IgnoresGraphNameKeyOrderAndWhitespace) {
  EXPECT_EQ(canonical_graph_content(R"({"name": "a", "x": 1, "y": [1, 2]})"),
            canonical_graph_content(R"({ "y":[1,2],"x":1,   "name":"b" })"));
  EXPECT_NE(canonical_graph_content(R"({"name": "a", "x": 1})"),
            canonical_graph_content(R"({"name": "a", "x": 2})"));
  // Only the top-level name: a tensor's name is content.
  EXPECT_NE(canonical_graph_content(R"({"t": {"name": "a"}})"),
            canonical_graph_content(R"({"t": {"name": "b"}})"));
  EXPECT_FALSE(canonical_graph_content("not json"));
  EXPECT_FALSE(canonical_graph_content("[1, 2]"));
}

class LoaderTest : public ::testing::Test {
 protected:
  GraphInput write(const std::string& name, const std::string& text) {
    const auto path = dir_.path() / name;
    std::ofstream(path) << text;
    return {path.string(), path, std::nullopt};
  }
  ScopedTempDir dir_{"dnnbench-loader-test"};
  RunOptions options_;
};

TEST_F(LoaderTest, SecondCopyIsADuplicateOfTheFirst) {
  GraphLoader loader(options_);
  const auto a = write("a.json", relu_named("first"));
  const auto b = write("b.json", relu_named("second"));
  GraphResult ra, rb;
  const auto first = loader.load(a, ra);
  ASSERT_TRUE(first);
  // The graph carries its content hash: what the compiled-plan cache keys plans on.
  ASSERT_TRUE(ra.content_hash);
  EXPECT_EQ(first->content_hash, *ra.content_hash);
  EXPECT_FALSE(loader.load(b, rb));
  EXPECT_EQ(graph_status_name(ra), "ok");
  EXPECT_EQ(graph_status_name(rb), "duplicate");
  EXPECT_EQ(rb.duplicate_of, a.path);
  EXPECT_EQ(rb.graph_name, "second");
  EXPECT_TRUE(rb.ok);
}

TEST_F(LoaderTest, OpFilterMatchesNodeTypesAndFamiliesCaseInsensitively) {
  for (const std::string op : {"PointwiseAttributes", "pointwise", "Pointwise", "POINTWISE"}) {
    options_.ops = {op};
    GraphLoader loader(options_);
    GraphResult r;
    EXPECT_TRUE(loader.load(write("a.json", relu_named("g")), r)) << op;
    EXPECT_FALSE(r.filtered);
  }
  options_.ops = {"matmul", "conv_fwd"};
  GraphLoader loader(options_);
  GraphResult r;
  EXPECT_FALSE(loader.load(write("a.json", relu_named("g")), r));
  EXPECT_TRUE(r.filtered);
  EXPECT_EQ(graph_status_name(r), "filtered");
}

TEST_F(LoaderTest, BrokenAndRefusedInputsAreErrorsNamingTheInput) {
  GraphLoader loader(options_);
  GraphResult r1;
  EXPECT_FALSE(loader.load(write("bad.json", "{\"name\": 3"), r1));
  EXPECT_FALSE(r1.ok);
  EXPECT_NE(r1.error_message->find("bad.json"), std::string::npos);
  GraphResult r2;
  EXPECT_FALSE(loader.load({"x.tar:../a.json", "", std::string("x.tar: entry '../a.json': refused")}, r2));
  EXPECT_EQ(graph_status_name(r2), "error");
  EXPECT_EQ(r2.graph_path, "x.tar:../a.json");
  // A graph read from an archive is reported under its archive path, not the extraction folder.
  const auto file = write("extracted.json", "{}");
  GraphResult r3;
  EXPECT_FALSE(loader.load({"suite.tgz:dir/g.json", file.file, std::nullopt}, r3));
  EXPECT_EQ(r3.error_message->rfind("suite.tgz:dir/g.json", 0), 0u) << *r3.error_message;
  // Broken graphs are never duplicates of each other: each is reported.
  GraphResult r4;
  EXPECT_FALSE(loader.load(write("bad2.json", "{\"name\": 3"), r4));
  EXPECT_FALSE(r4.ok);
}

}  // namespace
}  // namespace dnnbench
