// Expansion of -g arguments: files, folders, globs, archives, comma lists, and their order.
#include "input/inputs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "../support/archive_writer.hpp"

namespace dnnbench {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> paths_of(const GraphInputs& inputs) {
  std::vector<std::string> paths;
  for (const auto& i : inputs.inputs) paths.push_back(i.path);
  return paths;
}

TEST(Inputs, FoldersExpandRecursivelySortedAndCommasSplit) {
  const auto inputs =
      expand_graph_inputs({std::string(DNNBENCH_SOURCE_DIR) + "/graphs/samples", "x.json,y.json"});
  const auto paths = paths_of(inputs);
  ASSERT_GT(paths.size(), 25u);
  EXPECT_TRUE(std::is_sorted(paths.begin(), paths.end() - 2));
  EXPECT_EQ(paths[paths.size() - 2], "x.json");  // missing files are kept: the suite reports them
  EXPECT_EQ(paths.back(), "y.json");
  EXPECT_TRUE(inputs.extraction_folders.empty());
}

class InputsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* f : {"a/one.json", "a/b/two.json", "a/b/notes.txt", "c/three.json"}) touch(f, "{}");
  }
  void touch(const std::string& name, const std::string& text) {
    fs::create_directories((dir_.path() / name).parent_path());
    std::ofstream(dir_.path() / name) << text;
  }
  std::string at(const std::string& name) const { return (dir_.path() / name).string(); }
  ScopedTempDir dir_{"dnnbench-inputs-test"};
};

TEST_F(InputsTest, GlobsKeepGraphFilesAndArchivesSorted) {
  const auto inputs = expand_graph_inputs({at("**/*.json")});
  EXPECT_EQ(paths_of(inputs),
            (std::vector<std::string>{at("a/b/two.json"), at("a/one.json"), at("c/three.json")}));
  const auto all = expand_graph_inputs({at("a/**")});  // notes.txt is neither a graph nor an archive
  EXPECT_EQ(paths_of(all), (std::vector<std::string>{at("a/b/two.json"), at("a/one.json")}));
}

TEST_F(InputsTest, GlobWithoutMatchesIsAnInputError) {
  const auto inputs = expand_graph_inputs({at("nothing/*.json")});
  ASSERT_EQ(inputs.inputs.size(), 1u);
  ASSERT_TRUE(inputs.inputs[0].error);
  EXPECT_NE(inputs.inputs[0].error->find("no graph file or archive matches"), std::string::npos);
}

TEST_F(InputsTest, ArchivesAreExtractedSortedWithRefusalsLastAndTheFolderIsRemoved) {
  using testing::ArchiveFormat;
  using testing::file_member;
  testing::write_archive(
      dir_.path() / "suite.tar.gz", ArchiveFormat::tar_gz,
      {file_member("z.json", "{}"), file_member("../evil.json", "{}"), file_member("m/a.json", "{}")});
  fs::path folder;
  {
    const auto inputs = expand_graph_inputs({at("suite.tar.gz") + "," + at("c")});
    const auto suite = at("suite.tar.gz");
    EXPECT_EQ(paths_of(inputs), (std::vector<std::string>{suite + ":m/a.json", suite + ":z.json",
                                                          suite + ":../evil.json", at("c/three.json")}));
    ASSERT_EQ(inputs.extraction_folders.size(), 1u);
    folder = inputs.extraction_folders[0]->path();
    EXPECT_TRUE(fs::exists(inputs.inputs[0].file));
    EXPECT_EQ(inputs.inputs[0].file.string().rfind(folder.string(), 0), 0u);
    EXPECT_TRUE(inputs.inputs[2].error);
  }
  EXPECT_FALSE(fs::exists(folder));
}

TEST_F(InputsTest, EmptyArchiveIsReported) {
  testing::write_archive(dir_.path() / "empty.zip", testing::ArchiveFormat::zip,
                         {testing::file_member("readme.txt", "hi")});
  const auto inputs = expand_graph_inputs({at("empty.zip")});
  ASSERT_EQ(inputs.inputs.size(), 1u);
  EXPECT_NE(inputs.inputs[0].error->find("holds no .json graph file"), std::string::npos);
}

}  // namespace
}  // namespace dnnbench
