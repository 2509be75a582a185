// fresh_input_uids: the inputs --cache-mode producer keeps in one set, by each op's roles, on the
// committed samples.
#include "graph/fresh_inputs.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../support/sample_graph.hpp"

namespace dnnbench {
namespace {

// The roles of `graph`'s first node (or the node of kind `kind`) that hold the fresh inputs.
std::vector<std::string> fresh_roles(const std::string& name) {
  const Graph graph = testing::sample_graph(name);
  std::vector<std::string> roles;
  for (const auto uid : fresh_input_uids(graph))
    for (const auto& node : graph.nodes)
      for (const auto& port : node.inputs)
        if (port.uid == uid) roles.push_back(port.role);
  return roles;
}

TEST(FreshInputs, ForwardOpsKeepTheirActivationBackwardOpsTheIncomingGradient) {
  EXPECT_EQ(fresh_roles("conv_fwd_2d_nchw_fp32"), std::vector<std::string>{"x"});
  EXPECT_EQ(fresh_roles("conv_bwd_data_2d_fp32"), std::vector<std::string>{"dy"});
  // A weight gradient's x was saved in the forward pass, a whole pass ago.
  EXPECT_EQ(fresh_roles("conv_bwd_weights_2d_fp32"), std::vector<std::string>{"dy"});
  EXPECT_EQ(fresh_roles("batchnorm_backward"), std::vector<std::string>{"dy"});
  EXPECT_EQ(fresh_roles("matmul_fp16"), std::vector<std::string>{"a"});
  EXPECT_EQ(fresh_roles("resample_maxpool_3x3_s2"), std::vector<std::string>{"x"});
  EXPECT_EQ(fresh_roles("sdpa_fwd_fp16"), (std::vector<std::string>{"q", "k", "v"}));
  EXPECT_EQ(fresh_roles("sdpa_bwd_fp16"), std::vector<std::string>{"do"});
}

// A fused chain keeps the graph's own inputs only: the convolution's x, not the bias (a weight)
// nor the intermediate the pointwise ops read.
TEST(FreshInputs, AFusedChainKeepsOnlyItsFirstOpsActivation) {
  EXPECT_EQ(fresh_roles("fused_conv_bias_relu"), std::vector<std::string>{"x"});
  const Graph graph = testing::sample_graph("fused_conv_bias_relu");
  for (const auto uid : fresh_input_uids(graph)) EXPECT_FALSE(graph.tensor(uid).is_virtual);
}

}  // namespace
}  // namespace dnnbench
