#pragma once
// A graph of graphs/samples by name, for the tests that run the committed samples.
#include <filesystem>
#include <string>

#include "graph/graph.hpp"
#include "graph/reader.hpp"

namespace dnnbench::testing {

inline std::filesystem::path sample_graph_path(const std::string& name) {
  return std::filesystem::path(DNNBENCH_SOURCE_DIR) / "graphs" / "samples" / (name + ".json");
}

inline Graph sample_graph(const std::string& name) {
  return read_graph_file(sample_graph_path(name));
}

}  // namespace dnnbench::testing
