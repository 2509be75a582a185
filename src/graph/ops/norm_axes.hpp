#pragma once
// Which axes of `x` a normalization reduces over; shared by validation, the cost model and the
// reference so that all three agree.
#include <vector>

#include "graph/graph.hpp"

namespace dnnbench {

// LayernormAttributes: the last `normalized_dim_count` axes of x.
std::vector<int> layernorm_normalized_axes(const Graph& graph, const Node& node);
// RMSNormAttributes: the axes where the `inv_rms` output has size 1; without `inv_rms`, every
// axis but the first (batch).
std::vector<int> rmsnorm_normalized_axes(const Graph& graph, const Node& node);

}  // namespace dnnbench
