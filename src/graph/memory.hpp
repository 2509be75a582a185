#pragma once
// The bytes a graph's tensors take, by the kind of copy the tool makes of them. The validator's
// --max-graph-bytes check and the run's memory budget (env/memory_budget.hpp) both start here.
#include <cstdint>
#include <string>

#include "graph/graph.hpp"

namespace dnnbench {

// Every sum saturates at INT64_MAX instead of overflowing (the graph may be hostile).
struct GraphTensorBytes {
  std::int64_t inputs = 0;         // storage of the non-virtual tensors no node produces (filled)
  std::int64_t outputs = 0;        // storage of the non-virtual tensors nodes produce (checked)
  std::int64_t reference = 0;      // fp64 values of every tensor, virtual intermediates included
  std::int64_t output_values = 0;  // fp64 values of the outputs (what one check converts)
  // Storage of every non-virtual tensor; by-value scalars are bound from the host and not counted.
  std::int64_t storage() const;
};

// Needs dims and strides already checked by validation (check_layout), or at least no overflow in
// each tensor's own size.
GraphTensorBytes graph_tensor_bytes(const Graph& graph);

// "2.00 GiB (2147483648 bytes)", "3.50 MiB (3670016 bytes)": exact for the record, readable at a glance.
std::string describe_bytes(std::int64_t bytes);

// a + b, or INT64_MAX when that overflows; a * b likewise (a, b >= 0).
std::int64_t saturating_add(std::int64_t a, std::int64_t b);
std::int64_t saturating_mul(std::int64_t a, std::int64_t b);

}  // namespace dnnbench
