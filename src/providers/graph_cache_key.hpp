#pragma once
// What identifies a graph for a provider's cache of its last analysis (rows of one graph ask
// engines(), heuristic_plan(), plan_space() and build() in turn); with the graph's address, a
// graph object reused for another file does not hit the cache.
#include <string>

#include "graph/graph.hpp"

namespace dnnbench {

inline std::string graph_cache_key(const Graph& graph) {
  return graph.source_path + "|" + graph.name + "|" + std::to_string(graph.tensors.size()) + "|" +
         std::to_string(graph.nodes.size());
}

}  // namespace dnnbench
