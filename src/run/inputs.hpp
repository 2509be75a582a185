#pragma once
// Expands the -g arguments into graph file paths: files as given, folders recursively
// (`.json` files, sorted so the order is deterministic). A path that does not exist is kept,
// so that the suite reports it as a graph that failed to load.
#include <string>
#include <vector>

namespace dnnbench {

std::vector<std::string> expand_graph_inputs(const std::vector<std::string>& arguments);

}  // namespace dnnbench
