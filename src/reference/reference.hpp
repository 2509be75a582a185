#pragma once
// The reference: the tool's own straightforward implementation of every op it executes,
// accumulating in fp64 on the CPU. Used to judge every provider's outputs.
#include <cstdint>
#include <functional>
#include <unordered_map>

#include "graph/graph.hpp"
#include "tensor/dense.hpp"

namespace dnnbench {

// Logical values by tensor uid.
using Values = std::unordered_map<std::int64_t, Dense>;

// Runs every node in order. `values` must hold every graph input (Graph::input_uids, by-value
// scalars included as 1-element Dense); on return it also holds every node output (virtual
// intermediates included). Throws std::runtime_error for an op kind it cannot run.
// `node_override`, when given, is offered every node first; when it returns true it has computed
// that node's outputs (the CUDA reference computes convolutions and matmuls this way).
using NodeOverride = std::function<bool(const Graph&, const Node&, Values&)>;
void run_reference(const Graph& graph, Values& values, const NodeOverride& node_override = {});

// One entry point per op family (reference/<family>.cpp). Each reads its inputs from `values`
// and writes its outputs (shaped as the graph's tensor dims) into `values`.
void reference_conv(const Graph& graph, const Node& node, Values& values);  // fwd, bwd data, bwd weights
void reference_matmul(const Graph& graph, const Node& node, Values& values);
void reference_pointwise(const Graph& graph, const Node& node, Values& values);
void reference_batchnorm(const Graph& graph, const Node& node, Values& values);
void reference_batchnorm_training(const Graph& graph, const Node& node, Values& values);
void reference_batchnorm_backward(const Graph& graph, const Node& node, Values& values);
void reference_layernorm(const Graph& graph, const Node& node, Values& values);
void reference_rmsnorm(const Graph& graph, const Node& node, Values& values);
void reference_reduction(const Graph& graph, const Node& node, Values& values);
void reference_resample(const Graph& graph, const Node& node, Values& values);
void reference_sdpa(const Graph& graph, const Node& node, Values& values);  // forward and backward

}  // namespace dnnbench
