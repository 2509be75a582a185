#include "providers/reference/reference_provider.hpp"

#include <gtest/gtest.h>

#include "../support/graph_builder.hpp"
#include "providers/registry.hpp"
#include "run/row_runner.hpp"
#include "session/graph_data.hpp"

namespace dnnbench {
namespace {

Graph relu_f32_to_f16_graph() {
  testing::GraphBuilder b("relu");
  const auto x = b.tensor("x", {2, 3});
  const auto y = b.tensor("y", {2, 3}, DataType::f16);
  PointwiseParams relu;
  relu.op = PointwiseOp::relu;
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", x}}, {{"out_0", y}}, relu);
  return b.build();
}

TEST(ReferenceProvider, RunsAsAnEngineAndPassesItsOwnCheck) {
  auto provider = make_reference_provider();
  auto stream = provider->make_stream();
  const auto graph = relu_f32_to_f16_graph();
  GraphData data(graph, 1);
  const auto engines = provider->engines(graph);
  ASSERT_EQ(engines.size(), 1u);
  RunOptions options;
  options.iters = 2;
  options.warmup = 0;
  const auto row = run_row(data, *provider, *stream, engines[0], options);
  EXPECT_EQ(row.status, RowStatus::success) << row.error_message.value_or("");
  EXPECT_TRUE(row.passed());
  EXPECT_EQ(row.plan_name, "cpu-fp64");
  EXPECT_EQ(row.host_stats->n, 2);
}

TEST(ReferenceProvider, RefusesAnyOtherPlan) {
  auto provider = make_reference_provider();
  EXPECT_THROW(provider->build(relu_f32_to_f16_graph(), PlanSpec{"cpu-fp64", {{"k", "1"}}}), Unsupported);
}

TEST(ProviderRegistry, ReferenceIsBuiltButOptIn) {
  EXPECT_NE(make_provider("reference"), nullptr);
  const auto defaults = default_provider_names();
  EXPECT_EQ(std::count(defaults.begin(), defaults.end(), "reference"), 0) << "reference must be opt-in";
  EXPECT_EQ(unknown_provider_message("reference"), "");
  EXPECT_NE(unknown_provider_message("nope").find("unknown provider 'nope'"), std::string::npos);
}

}  // namespace
}  // namespace dnnbench
