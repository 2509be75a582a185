#pragma once
// Seeded fills: deterministic per (seed, tensor uid), never all zeros, identical for every
// engine of a graph. Three kinds (--fill; docs/methodology.md, "Input data"):
//   normal (default): draws of a normal distribution, N(0, 0.5^2) for an ordinary tensor (the
//     shape of torch.randn at half its scale), rounded to the tensor's type: every mantissa bit of fp8, fp16,
//     bf16, fp32 and fp64 is used. A GPU's power and clock depend on how many bits switch: on the H200 a bf16
//     8192^3 GEMM ran 9.7% slower on such data than on a 1/64 grid, which is what a workload's
//     activations and weights (roughly normal, full mantissa) cost. Down-conversion to TF32 or
//     bf16 shows in the error figures too.
//   uniform: uniform draws over the range (U(-1, 1) for an ordinary tensor), rounded to the type;
//     the distribution of PyTorch's default layer initialisation.
//   grid: multiples of 1/64, exact in every floating type the tool stores, so fp32 results are
//     exact sums and errors come only from accumulation order. Few mantissa bits switch: a GPU
//     draws less power and clocks higher than on real data, so times on a grid are optimistic.
// Tensors whose use constrains their values (variances, divisors, log inputs: FillRange) get
// uniform draws over their range under normal too. Whatever the kind, the inputs a library sees
// are exactly the ones the reference computes with (the draws are rounded before either sees them).
#include <cstdint>
#include <optional>
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

enum class FillKind { normal, uniform, grid };
std::string_view fill_kind_name(FillKind kind);
// "normal", "uniform", "grid"; "full" (the name of uniform before normal was the default, in
// older recipes and journals) is uniform.
std::optional<FillKind> fill_kind_from_name(std::string_view name);

// Elements per independent stream of a fill (seeded_values): fixed, so that the values never
// depend on the number of threads that fill them.
inline constexpr std::int64_t kFillBlock = std::int64_t{1} << 16;

// Seeded random logical values for `desc` in `range`, representable in desc.dtype.
Dense seeded_values(const TensorDesc& desc, FillRange range, std::uint64_t seed,
                    FillKind kind = FillKind::normal);

// The same values as seeded_values, stored straight into `tensor`'s storage (its dtype and
// strides), on every core.
void fill_seeded(HostTensor& tensor, FillRange range, std::uint64_t seed, FillKind kind = FillKind::normal);

// splitmix64: the tool's own generator, so that fills are identical on every platform and
// compiler (std:: distributions are implementation-defined).
std::uint64_t splitmix64(std::uint64_t& state);

}  // namespace dnnbench
