#pragma once
// Cost model: analytical FLOPs and the minimum bytes a graph must move (every non-virtual
// tensor read or written once), for throughput figures; and the reduction length that scales
// comparison tolerances.
#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.hpp"

namespace dnnbench {

struct GraphCost {
  double flops = 0;                   // multiply-add counted as 2
  double min_bytes = 0;               // sum of non-virtual tensor sizes (logical elements x dtype size)
  std::int64_t reduction_length = 1;  // largest number of terms accumulated into one output
};

GraphCost graph_cost(const Graph& graph);

// The data type a graph's peak FLOP/s are looked up for: that of the first input of its first
// convolution or matmul (where nearly all its FLOPs are), else of its first node; unset when it
// has no nodes.
DataType roofline_data_type(const Graph& graph);
// Op families of the graph's nodes ("conv_fwd", "pointwise"), in order of first appearance.
std::vector<std::string> op_families(const Graph& graph);

}  // namespace dnnbench
