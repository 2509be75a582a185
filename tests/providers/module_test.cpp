// A provider module that cannot load is an unusable provider with the loader's reason (its rows
// skip with it), never an exception that aborts the process: on the H200 a LibTorch module that
// missed a libfmt symbol killed every isolated child of a run over cudnn, cublaslt and torch.
#include "providers/module.hpp"

#include <gtest/gtest.h>

#include "../support/graph_builder.hpp"

namespace dnnbench {
namespace {

TEST(ProviderModule, AModuleThatCannotLoadIsUnusableWithTheLoadersReason) {
  const auto provider = load_provider_module("torch", "/nonexistent/libdnnbench_torch.so", "make");
  ASSERT_NE(provider, nullptr);
  EXPECT_EQ(provider->name(), "torch");
  const auto reason = provider->unusable_reason();
  EXPECT_NE(reason.find("cannot load provider module /nonexistent/libdnnbench_torch.so"), std::string::npos)
      << reason;
  EXPECT_NE(provider->make_stream(), nullptr);
  testing::GraphBuilder g("relu", DataType::f32);
  const auto x = g.tensor("x", {4}, DataType::f32);
  const auto y = g.tensor("y", {4}, DataType::f32);
  PointwiseParams p;
  p.op = PointwiseOp::relu;
  g.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", x}}, {{"out_0", y}}, p);
  try {
    provider->engines(g.build());
    FAIL() << "engines() of an unloaded module should throw Unsupported";
  } catch (const Unsupported& e) {
    EXPECT_EQ(std::string(e.what()), reason);
  }
}

}  // namespace
}  // namespace dnnbench
