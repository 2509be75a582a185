#include "input/glob.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "input/archive.hpp"

namespace dnnbench {
namespace {

TEST(GlobMatch, StarAndQuestionStayInsideOneSegment) {
  EXPECT_TRUE(glob_match("*.json", "a.json"));
  EXPECT_FALSE(glob_match("*.json", "dir/a.json"));
  EXPECT_TRUE(glob_match("conv_?d.json", "conv_2d.json"));
  EXPECT_FALSE(glob_match("conv_?d.json", "conv_22d.json"));
  EXPECT_TRUE(glob_match("a*b*c", "aXbYc"));
  EXPECT_TRUE(glob_match("a*b*c", "abc"));
  EXPECT_FALSE(glob_match("a*b*c", "abX"));
  EXPECT_TRUE(glob_match("*", "x"));
  EXPECT_FALSE(glob_match("?", ""));
}

TEST(GlobMatch, BracketSetsRangesNegationAndEscapes) {
  EXPECT_TRUE(glob_match("conv_[23]d.json", "conv_3d.json"));
  EXPECT_FALSE(glob_match("conv_[23]d.json", "conv_1d.json"));
  EXPECT_TRUE(glob_match("x[a-c]", "xb"));
  EXPECT_FALSE(glob_match("x[a-c]", "xd"));
  EXPECT_TRUE(glob_match("x[!a-c]", "xd"));
  EXPECT_TRUE(glob_match("x[^a-c]", "xd"));
  EXPECT_FALSE(glob_match("x[!a-c]", "xa"));
  EXPECT_TRUE(glob_match("x[]]", "x]"));
  EXPECT_TRUE(glob_match("a\\*b", "a*b"));
  EXPECT_FALSE(glob_match("a\\*b", "aXb"));
  EXPECT_TRUE(glob_match("a[b", "a[b"));  // an unclosed bracket is a literal
}

TEST(GlobMatch, DoubleStarSpansZeroOrMoreFolders) {
  EXPECT_TRUE(glob_match("graphs/**/*.json", "graphs/a.json"));
  EXPECT_TRUE(glob_match("graphs/**/*.json", "graphs/perf/gemm/a.json"));
  EXPECT_FALSE(glob_match("graphs/**/*.json", "other/a.json"));
  EXPECT_TRUE(glob_match("**", "a/b/c"));
  EXPECT_TRUE(glob_match("**/c", "c"));
  EXPECT_TRUE(glob_match("a/**/b/**/c", "a/x/b/y/z/c"));
  EXPECT_FALSE(glob_match("a/**/b/**/c", "a/x/y/z/c"));
  EXPECT_TRUE(glob_match("a**b", "aXXb"));  // inside a segment, ** is *
  EXPECT_FALSE(glob_match("a**b", "aX/Xb"));
}

TEST(GlobMatch, HiddenNamesNeedALiteralDot) {
  EXPECT_FALSE(glob_match("*.json", ".hidden.json"));
  EXPECT_TRUE(glob_match(".*.json", ".hidden.json"));
  EXPECT_FALSE(glob_match("**/*.json", ".git/a.json"));
  EXPECT_TRUE(glob_match(".git/*.json", ".git/a.json"));
}

TEST(GlobMatch, ManyDoubleStarsStayFast) {
  std::string pattern, path;
  for (int k = 0; k < 30; ++k) pattern += "**/";
  pattern += "x";
  for (int k = 0; k < 40; ++k) path += "d/";
  path += "y";
  EXPECT_FALSE(glob_match(pattern, path));  // memoized: returns at once
}

class GlobFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* file : {"a.json", "b.txt", "sub/c.json", "sub/deep/d.json", "sub/deep/e.json",
                             ".hid/f.json", "z/[x].json"}) {
      const auto path = dir_.path() / file;
      std::filesystem::create_directories(path.parent_path());
      std::ofstream(path) << "{}";
    }
  }
  std::string root() const { return dir_.path().string(); }
  ScopedTempDir dir_{"dnnbench-glob-test"};
};

TEST_F(GlobFiles, SortedMatchesSpelledLikeThePattern) {
  const auto all = glob_files(root() + "/**/*.json");
  const std::vector<std::string> expected = {root() + "/a.json", root() + "/sub/c.json",
                                             root() + "/sub/deep/d.json", root() + "/sub/deep/e.json",
                                             root() + "/z/[x].json"};
  EXPECT_EQ(all, expected);
  EXPECT_EQ(glob_files(root() + "/*/*.json"),
            (std::vector<std::string>{root() + "/sub/c.json", root() + "/z/[x].json"}));
  EXPECT_EQ(glob_files(root() + "/sub/deep/[d]*"), (std::vector<std::string>{root() + "/sub/deep/d.json"}));
  EXPECT_EQ(glob_files(root() + "/.hid/*.json"), (std::vector<std::string>{root() + "/.hid/f.json"}));
  EXPECT_TRUE(glob_files(root() + "/nothing/**/*.json").empty());
  EXPECT_TRUE(glob_files(root() + "/*.yaml").empty());
}

TEST(GlobCharacters, Detection) {
  EXPECT_TRUE(has_glob_characters("a/*.json"));
  EXPECT_TRUE(has_glob_characters("a?"));
  EXPECT_TRUE(has_glob_characters("[ab]"));
  EXPECT_FALSE(has_glob_characters("graphs/samples/a.json"));
}

}  // namespace
}  // namespace dnnbench
