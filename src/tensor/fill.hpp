#pragma once
// Seeded fills: deterministic per (seed, tensor uid), never all zeros, identical for every
// engine of a graph. Values are drawn on a grid of multiples of 1/64 so they are exact in every
// floating type the tool stores (fp16 and bf16 included): the inputs a library sees are exactly
// the ones the reference computes with.
#include <cstdint>

#include "graph/graph.hpp"
#include "tensor/dense.hpp"

namespace dnnbench {

struct FillRange {
  double lo = -1.0, hi = 1.0;
  bool exclude_zero = false;  // divisors, reciprocals
};

// The range a graph input needs given how the graph uses it (log/sqrt inputs and variances
// positive, divisors away from zero, integers small).
FillRange fill_range_for(const Graph& graph, std::int64_t uid);

// Seeded random logical values for `desc` in `range`, representable in desc.dtype.
Dense seeded_values(const TensorDesc& desc, FillRange range, std::uint64_t seed);

// splitmix64: the tool's own generator, so that fills are identical on every platform and
// compiler (std:: distributions are implementation-defined).
std::uint64_t splitmix64(std::uint64_t& state);

}  // namespace dnnbench
