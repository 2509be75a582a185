#pragma once
// The CUDA reference (reference/cuda/): convolutions, matmuls and attention computed on the GPU
// in fp32, every other node by the CPU reference. Built only with CUDA; elsewhere it reports why not.
#include <string>

#include "reference/reference.hpp"

namespace dnnbench {

// "" when the CUDA reference can run here; else why not ("not built with CUDA", "no CUDA
// device: ...").
std::string gpu_reference_unavailable_reason();

// The nodes the CUDA reference computes: convolutions (forward, backward data and weights),
// matmuls and attention (forward, backward), the heavy nodes whose fp64 CPU reference takes
// minutes at perf sizes.
inline bool is_gpu_reference_kind(OpKind kind) {
  return kind == OpKind::conv_fwd || kind == OpKind::conv_bwd_data || kind == OpKind::conv_bwd_weights ||
         kind == OpKind::matmul || kind == OpKind::sdpa_fwd || kind == OpKind::sdpa_bwd;
}
inline bool has_gpu_reference_node(const Graph& graph) {
  for (const auto& node : graph.nodes)
    if (is_gpu_reference_kind(node.kind)) return true;
  return false;
}

// Computes a convolution, matmul or attention node with the CUDA kernels and returns true; returns false
// (values untouched) for any other node and for fp64 data, which fp32 kernels would round.
// Throws std::runtime_error on a CUDA error or when not built with CUDA.
bool gpu_reference_node(const Graph& graph, const Node& node, Values& values);

}  // namespace dnnbench
