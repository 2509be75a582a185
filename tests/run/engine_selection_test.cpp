#include <gtest/gtest.h>
#include <algorithm>

#include "run/inputs.hpp"
#include "run/row_runner.hpp"
#include "run/suite_runner.hpp"

namespace dnnbench {
namespace {

TEST(EngineSelection, EmptyFilterKeepsLibraryOrder) {
  const std::vector<EngineInfo> offered = {{"a", "A", {}}, {"b", "B", {}}};
  const auto s = select_engines(offered, {});
  ASSERT_EQ(s.engines.size(), 2u);
  EXPECT_EQ(s.engines[0].id, "a");
}

TEST(EngineSelection, FilterKeepsRequestedOrderMatchesNamesAndReportsMissing) {
  const std::vector<EngineInfo> offered = {{"a", "Alpha", {}}, {"b", "Beta", {}}, {"c", "Gamma", {}}};
  const auto s = select_engines(offered, {"c", "Alpha", "zzz", "a"});
  ASSERT_EQ(s.engines.size(), 2u);
  EXPECT_EQ(s.engines[0].id, "c");
  EXPECT_EQ(s.engines[1].id, "a");
  ASSERT_EQ(s.missing.size(), 1u);
  EXPECT_EQ(s.missing[0], "zzz");
}

TEST(RowRunner, SanitizeForPath) {
  EXPECT_EQ(sanitize_for_path("jit:avx2"), "jit_avx2");
  EXPECT_EQ(sanitize_for_path("ref:any#2"), "ref_any_2");
  EXPECT_EQ(sanitize_for_path(".."), "_..");
  EXPECT_EQ(sanitize_for_path("a/b"), "a_b");
}

TEST(Inputs, FoldersExpandRecursivelySortedAndCommasSplit) {
  const auto paths =
      expand_graph_inputs({std::string(DNNBENCH_SOURCE_DIR) + "/graphs/samples", "x.json,y.json"});
  ASSERT_GT(paths.size(), 25u);
  EXPECT_TRUE(std::is_sorted(paths.begin(), paths.end() - 2));
  EXPECT_EQ(paths[paths.size() - 2], "x.json");
  EXPECT_EQ(paths.back(), "y.json");
}

}  // namespace
}  // namespace dnnbench
