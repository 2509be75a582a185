#pragma once
// Seeded fills: deterministic per (seed, tensor uid), never all zeros, identical for every
// engine of a graph. Two kinds (--fill):
//   full (default): fp32 and wider tensors get full-precision random values (every mantissa bit
//     used), so that an engine which rounds its fp32 inputs to TF32 or bf16 shows it in the error
//     figures; narrower types get the grid below, which is exact in them anyway.
//   grid: every floating tensor gets multiples of 1/64, exact in every floating type the tool
//     stores (fp16 and bf16 included), so fp32 results are exact sums and errors only come from
//     accumulation order. Hides down-conversion: a 1/64 grid value is exact in TF32.
// Either way the inputs a library sees are exactly the ones the reference computes with.
#include <cstdint>
#include <string_view>

#include "graph/graph.hpp"
#include "tensor/dense.hpp"
#include "tensor/host_tensor.hpp"

namespace dnnbench {

struct FillRange {
  double lo = -1.0, hi = 1.0;
  bool exclude_zero = false;  // divisors, reciprocals
};

// The range a graph input needs given how the graph uses it (log/sqrt inputs and variances
// positive, divisors away from zero, integers small).
FillRange fill_range_for(const Graph& graph, std::int64_t uid);

enum class FillKind { full, grid };
std::string_view fill_kind_name(FillKind kind);

// Elements per independent stream of a fill (seeded_values): fixed, so that the values never
// depend on the number of threads that fill them.
inline constexpr std::int64_t kFillBlock = std::int64_t{1} << 16;

// Seeded random logical values for `desc` in `range`, representable in desc.dtype.
Dense seeded_values(const TensorDesc& desc, FillRange range, std::uint64_t seed,
                    FillKind kind = FillKind::full);

// The same values as seeded_values, stored straight into `tensor`'s storage (its dtype and
// strides), on every core.
void fill_seeded(HostTensor& tensor, FillRange range, std::uint64_t seed, FillKind kind = FillKind::full);

// splitmix64: the tool's own generator, so that fills are identical on every platform and
// compiler (std:: distributions are implementation-defined).
std::uint64_t splitmix64(std::uint64_t& state);

}  // namespace dnnbench
