#pragma once
// Turns one suite input into a graph to run, or into a final graph entry that is not run:
//   error      the input cannot be read, parsed or validated (the message names file and JSON path);
//   filtered   --op: the graph has no node of the requested op types;
//   duplicate  the same content as a graph met earlier in the suite (which ran);
//   error      also: the graph needs more host memory than the run may use (env/memory_budget.hpp).
// Two graphs are duplicates when their JSON is equal once the top-level `name` is removed:
// key order and whitespace do not matter, and the graph name changes nothing that is run or
// checked. Tensor and node names are kept in the comparison (they name outputs and dumps).
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graph/content_hash.hpp"  // canonical_graph_content(), content_hash()
#include "graph/graph.hpp"
#include "input/inputs.hpp"
#include "report/results.hpp"
#include "session/run_options.hpp"

namespace dnnbench {

class GraphLoader {
 public:
  explicit GraphLoader(const RunOptions& options) : options_(options) {}
  // Fills `result` (name, path, status, message); returns the graph when it is to be run.
  std::optional<Graph> load(const GraphInput& input, GraphResult& result);

 private:
  const RunOptions& options_;
  std::unordered_map<std::string, std::string> first_path_;  // canonical content -> graph_path
};

// Whether the graph has a node of one of `ops`: a node `type` ("ConvolutionFwdAttributes",
// "ConvolutionFwd") or an op family ("conv_fwd", "matmul", "pointwise"), case-insensitive.
// An empty list keeps every graph.
bool graph_has_op(const Graph& graph, const std::vector<std::string>& ops);

// Why an --op value can match no graph (it is neither an op family nor a hipDNN node type, in
// the spellings graph_has_op accepts), listing the families; "" when every value is known.
std::string unknown_op_message(const std::vector<std::string>& ops);

}  // namespace dnnbench
