#pragma once
// Everything about one graph that every row shares: seeded inputs (identical for every
// engine), the reference outputs, the cost figures.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "graph/cost.hpp"
#include "graph/graph.hpp"
#include "reference/reference.hpp"
#include "tensor/host_tensor.hpp"

namespace dnnbench {

class GraphData {
 public:
  GraphData(const Graph& graph, std::uint64_t seed);

  const Graph& graph() const { return graph_; }
  const GraphCost& cost() const { return cost_; }
  // Seeded inputs in their own dtype and strides (by-value scalars excluded).
  const std::map<std::int64_t, HostTensor>& inputs() const { return inputs_; }
  // Reference values of every tensor (inputs as stored, outputs computed); computed on first
  // use. Throws std::runtime_error when the reference cannot run the graph.
  const Values& reference();
  // Seconds the reference took (after reference() ran).
  double reference_seconds() const { return reference_seconds_; }

 private:
  const Graph& graph_;
  GraphCost cost_;
  std::map<std::int64_t, HostTensor> inputs_;
  std::optional<Values> reference_;
  double reference_seconds_ = 0;
};

}  // namespace dnnbench
