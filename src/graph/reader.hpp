#pragma once
// Reads hipDNN graph JSON into a Graph (structure and types only; rules are in validate.hpp).
#include <filesystem>
#include <string>
#include <string_view>

#include "graph/graph.hpp"

namespace dnnbench {

// Throws InputError naming `source` (the file) and the JSON path of the problem.
Graph parse_graph_json(std::string_view text, const std::string& source);
// Reads and parses a file; Graph::source_path is set to `path`.
Graph read_graph_file(const std::filesystem::path& path);

}  // namespace dnnbench
