#pragma once
// A graph as a sequence of ATen eager ops: each node becomes the ATen call(s) a PyTorch user
// would write for it, on tensors that view dnnbench's own buffers (graph strides kept). Only the
// torch provider's translation units include this header (LibTorch headers are heavy).
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/graph.hpp"

namespace dnnbench::torch_provider {

// ATen's scalar type of a graph dtype; Unsupported for types ATen has no tensors of (fp8 in 1.13).
at::ScalarType scalar_type(DataType dtype);

class AtenGraph {
 public:
  // `device`: where the bound tensors live (CPU or one CUDA device).
  AtenGraph(const Graph& graph, at::Device device);

  // Views the buffers (the tensors' own dtype and strides) as ATen tensors; by-value scalars are
  // bound by a host pointer to a double.
  void bind(const std::unordered_map<std::int64_t, void*>& buffers);
  // Binds tensors ATen allocates (zero-filled, the graph's strides): the trial run of build().
  void bind_scratch();
  // Runs every node in order and writes the graph outputs into the bound output tensors.
  // Throws Unsupported for what ATen cannot express, c10::Error for what ATen refuses.
  void run();
  // What the run does beyond the ops themselves (extra copies, flips, pads), for the plan's notes.
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  void run_node(const Node& node);
  void conv(const Node& node);
  void matmul(const Node& node);
  void pointwise(const Node& node);
  void batchnorm(const Node& node);
  void batchnorm_training(const Node& node);
  void batchnorm_backward(const Node& node);
  void layernorm(const Node& node);
  void rmsnorm(const Node& node);
  void reduction(const Node& node);
  void resample(const Node& node);
  void sdpa(const Node& node);

  const at::Tensor& in(const Node& node, std::string_view role) const;
  const at::Tensor* optional_in(const Node& node, std::string_view role) const;
  double scalar(const Node& node, std::string_view role) const;
  at::Tensor per_channel(const Node& node, std::string_view role, std::int64_t channels) const;
  // Stores a node's result for an output role: copied into the bound tensor for a graph output,
  // kept (in the tensor's dtype) for a virtual one. A result of the right element count but other
  // dims (statistics: [N, 1] vs [N]) is viewed with the graph's dims.
  void put(const Node& node, std::string_view role, const at::Tensor& result);
  // The bound tensor of a graph output an op may write in place (an ATen out= call), when the
  // output is not virtual and has `dtype`; nullptr otherwise.
  at::Tensor* direct_output(const Node& node, std::string_view role, at::ScalarType dtype);
  void note(const std::string& text);

  const Graph& graph_;
  at::Device device_;
  std::unordered_map<std::int64_t, at::Tensor> bound_;   // non-virtual tensors: views of the buffers
  std::unordered_map<std::int64_t, at::Tensor> values_;  // virtual intermediates of this run
  std::unordered_map<std::int64_t, double> scalars_;     // by-value scalars
  std::vector<std::string> notes_;
  // Attention masks built once per binding (bind() clears them): the keep-mask and which query
  // rows keep any key.
  struct SdpaMask {
    at::Tensor mask, rows_kept;
  };
  std::unordered_map<const Node*, SdpaMask> masks_;
};

}  // namespace dnnbench::torch_provider
