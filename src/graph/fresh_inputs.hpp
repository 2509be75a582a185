#pragma once
// Which of a graph's inputs a layer inside a network finds just written. In a network, a layer's
// activation input (a forward op's x, a backward op's incoming gradient dy) is the output its
// producer wrote an instant before, still in the device's L2 as far as it fits, while its weights
// and the activations saved from the forward pass were last touched a whole pass ago. The ResNet-50
// AMP training step captured from PyTorch shows both on the H100
// (bench/results/capture-check-h100-cache-modes.json): its convolutions and GEMMs agree with
// dnnbench's rotating rows (everything evicted, 1.002), its memory-bound batch norms with the hot
// ones (0.990 backward). `--cache-mode producer` keeps these inputs in one set and rotates the rest.
#include <cstdint>
#include <vector>

#include "graph/graph.hpp"

namespace dnnbench {

// The graph's inputs (non-virtual, produced by no node) that sit on a fresh role of a node, in
// graph order: x of forward convolutions, norms and poolings; dy of data and weight gradients
// and of a batch-norm backward; a of a matmul; in_0 of a pointwise op; in of a reduction; q, k, v of
// an attention forward; do of its backward. Empty where no node has one (a graph whose only node
// is unsupported).
std::vector<std::int64_t> fresh_input_uids(const Graph& graph);

}  // namespace dnnbench
