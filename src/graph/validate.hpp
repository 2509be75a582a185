#pragma once
// Full validation of a parsed graph before anything runs: structure, layouts, op shape rules,
// memory budget. Fills derived settings (e.g. conv groups).
#include <cstdint>

#include "graph/graph.hpp"

namespace dnnbench {

struct ValidationLimits {
  // Total bytes of all non-virtual tensors (storage) a graph may need; the check runs before
  // any allocation. Default 8 GiB.
  std::int64_t max_graph_bytes = std::int64_t{8} << 30;
};

// Throws InputError (file = graph.source_path, JSON path of the offending element).
void validate_graph(Graph& graph, const ValidationLimits& limits = {});

}  // namespace dnnbench
