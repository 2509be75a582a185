#pragma once
// MIOpenDriver command lines: the converter to graphs (import.hpp import_miopen_driver_text) and
// the way back, a graph written as the MIOpenDriver line that runs the same problem.
#include <string>
#include <vector>

#include "graph/graph.hpp"

namespace dnnbench {

// Whether a line's tokens start like a MIOpenDriver command (used to recognise a text source).
bool looks_like_miopen_driver_line(const std::vector<std::string>& tokens);

// The MIOpenDriver line of a validated graph of one convolution (forward, backward data or
// backward weights, forward optionally followed by a bias add), one batch norm (inference,
// training, backward) or one pooling forward. Throws InputError naming the graph when it is
// another kind of graph or uses something MIOpenDriver cannot say (asymmetric padding, a
// layout other than NCHW/NHWC, ...).
std::string miopen_driver_line(const Graph& graph);

}  // namespace dnnbench
