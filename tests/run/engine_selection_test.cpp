#include <gtest/gtest.h>
#include <algorithm>

#include "input/inputs.hpp"
#include "run/row_runner.hpp"
#include "run/suite_runner.hpp"
#include "session/plan_session.hpp"

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

TEST(EngineSelection, StrictFp32MathListsTf32EnginesApart) {
  const std::string tf32(kTf32MathNote);
  std::vector<EngineInfo> engines = {
      {"a", "A", {tf32}}, {"b", "B", {}}, {"c", "C", {"x", tf32}}, {"d", "D", {}}};
  auto all = engines;
  EXPECT_TRUE(take_refused_by_fp32_math(all, Fp32Math::tf32).empty());
  EXPECT_EQ(all.size(), 4u);
  const auto refused = take_refused_by_fp32_math(engines, Fp32Math::strict);
  ASSERT_EQ(engines.size(), 2u);
  EXPECT_EQ(engines[0].id, "b");
  EXPECT_EQ(engines[1].id, "d");
  ASSERT_EQ(refused.size(), 2u);
  EXPECT_EQ(refused[0].id, "a");
}

TEST(EngineSelection, ReducedPrecisionSkipListsThoseEnginesApartWithTheReason) {
  const std::string reduced(kReducedPrecisionNote);
  const std::vector<EngineInfo> offered = {
      {"e1", "E1", {"TENSOR_CORE", reduced}}, {"e2", "E2", {}}, {"e3", "E3", {reduced}}, {"e4", "E4", {}}};
  RunOptions options;
  options.max_engines = 1;  // refusals do not count against it
  const auto allowed = row_engines(offered, options, "cudnn", std::nullopt);
  ASSERT_EQ(allowed.selection.engines.size(), 1u);
  EXPECT_EQ(allowed.selection.engines[0].id, "e1") << "allow (the default) runs them";
  EXPECT_TRUE(allowed.refused.empty());
  options.reduced_precision = ReducedPrecision::skip;
  const auto skipped = row_engines(offered, options, "cudnn", std::nullopt);
  ASSERT_EQ(skipped.selection.engines.size(), 1u);
  EXPECT_EQ(skipped.selection.engines[0].id, "e2");
  ASSERT_EQ(skipped.refused.size(), 2u);
  EXPECT_EQ(skipped.refused[0].engine.id, "e1");
  EXPECT_EQ(skipped.refused[1].engine.id, "e3");
  EXPECT_NE(skipped.refused[0].reason.find("--reduced-precision"), std::string::npos)
      << skipped.refused[0].reason;
  EXPECT_TRUE(uses_reduced_precision(offered[2]));
  EXPECT_FALSE(uses_reduced_precision(offered[1]));
}

TEST(RowRunner, Fp32MathOfARow) {
  Graph fp32, fp16;
  TensorDesc t;
  t.dtype = DataType::f32;
  fp32.tensors.push_back(t);
  t.dtype = DataType::f16;
  fp16.tensors.push_back(t);
  const EngineInfo plain{"a", "A", {}}, tf32{"b", "B", {std::string(kTf32MathNote)}};
  EXPECT_EQ(fp32_math_of(fp32, plain), "strict");
  EXPECT_EQ(fp32_math_of(fp32, tf32), "tf32");
  EXPECT_FALSE(fp32_math_of(fp16, plain).has_value());
}

TEST(RowRunner, SanitizeForPath) {
  EXPECT_EQ(sanitize_for_path("jit:avx2"), "jit_avx2");
  EXPECT_EQ(sanitize_for_path("ref:any#2"), "ref_any_2");
  EXPECT_EQ(sanitize_for_path(".."), "_..");
  EXPECT_EQ(sanitize_for_path("a/b"), "a_b");
}

// An engine asked for by name that a graph does not get says why where its provider knows (cuDNN's
// legacy batch norm: "... updates running averages in place"), and still counts as not offered when
// the run warns about engines no graph offered.
TEST(EngineSelection, ANotOfferedEngineCarriesItsProvidersReason) {
  const auto plain = not_offered_reason("legacy_bn");
  const auto told = not_offered_reason("legacy_bn", "the legacy API updates running averages in place");
  EXPECT_EQ(plain, "engine 'legacy_bn' is not offered for this graph");
  EXPECT_EQ(told, plain + ": the legacy API updates running averages in place");
  EXPECT_TRUE(is_not_offered(plain, "legacy_bn"));
  EXPECT_TRUE(is_not_offered(told, "legacy_bn"));
  EXPECT_FALSE(is_not_offered(told, "eng0"));

  SuiteResult suite;
  suite.graphs.resize(2);
  RowResult refused;
  refused.engine_id = "legacy_bn";
  refused.skip_reason = told;
  suite.graphs[0].results.push_back(refused);
  EXPECT_EQ(engines_never_offered(suite, {"legacy_bn"}), std::vector<std::string>{"legacy_bn"});
  RowResult ran;
  ran.engine_id = "legacy_bn";
  suite.graphs[1].results.push_back(ran);
  EXPECT_TRUE(engines_never_offered(suite, {"legacy_bn"}).empty());
}

TEST(EngineSelection, SkippedEnginesAreLeftOutByIdOrName) {
  const std::vector<EngineInfo> offered = {{"a", "Alpha", {}}, {"b", "Beta", {}}, {"c", "Gamma", {}}};
  auto s = select_engines(offered, {}, {"b", "Gamma"});
  ASSERT_EQ(s.engines.size(), 1u);
  EXPECT_EQ(s.engines[0].id, "a");
  s = select_engines(offered, {"c", "b", "a"}, {"b"});
  ASSERT_EQ(s.engines.size(), 2u);
  EXPECT_EQ(s.engines[0].id, "c");
  EXPECT_TRUE(s.missing.empty());  // skipped is not missing
}

TEST(EngineSelection, RecipeMatrixRestrictsItsProvidersAndCarriesLabels) {
  RunOptions options;
  options.engines = {"x"};
  options.engine_matrix = {
      {"onednn", "b", "fast"}, {"onednn", "a", std::nullopt}, {"other", "z", std::nullopt}};
  const auto w = wanted_engines(options, "onednn");
  EXPECT_EQ(w.ids, (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(w.label_of({"b", "Beta", {}}), "fast");
  EXPECT_FALSE(w.label_of({"a", "Alpha", {}}));
  EXPECT_EQ(wanted_engines(options, "reference").ids, std::vector<std::string>{"x"});  // not in the matrix
}

}  // namespace
}  // namespace dnnbench
