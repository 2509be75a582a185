#pragma once
// Comparison of a provider's outputs with the reference: one core shared by every op and
// provider. An element passes when |out - ref| <= atol + rtol * |ref|; NaN or Inf where the
// reference is finite always fails.
#include <cstdint>
#include <optional>
#include <string>

#include "tensor/dense.hpp"
#include "tensor/dtype.hpp"

namespace dnnbench {

struct Tolerance {
  double rtol = 0, atol = 0;
  std::string basis;  // how it was chosen, e.g. "default half, reduction 576" or "--rtol/--atol"
  // Set: the output is judged on its normalized error ||out - ref|| / ||ref|| <= max_norm_rel
  // (elementwise mismatches against rtol/atol are still counted and reported, not judged); NaN
  // or Inf where the reference is finite still fails.
  std::optional<double> max_norm_rel;
  // > 0 with a magnitude tensor given to compare_values (the reference on |inputs|: Σ|a_i·b_i| of
  // each output of a contraction): an element also passes when its error is within
  // atol + rtol·|ref| + magnitude_factor·magnitude. Set by componentwise_tolerance.
  double magnitude_factor = 0;
};

// Per-dtype defaults, scaled with the reduction length: rounding error of a sum of n terms
// grows like sqrt(n) for random-signed data, so atol grows with sqrt(n / 64) past 64 terms.
Tolerance default_tolerance(DataType output_type, std::int64_t reduction_length);
// For fp32 outputs of an engine that computes in TF32 (inputs rounded to a 10-bit mantissa,
// like fp16's): the fp16 bases, scaled the same way. Other types keep their defaults.
Tolerance tf32_math_tolerance(DataType output_type, std::int64_t reduction_length);
// For an engine that convolves through Winograd transforms: the transforms' matrices amplify
// rounding error, so the result is legitimately less accurate than a direct convolution's in
// the same precision (about an order of magnitude for the usual F(4x4, 3x3) tiles; Barabasz et
// al., "Error analysis and improving the accuracy of Winograd convolution", 2020). `base` is
// widened by kWinogradErrorFactor, said in its basis.
inline constexpr double kWinogradErrorFactor = 10;
Tolerance winograd_tolerance(Tolerance base);
// For outputs judged against the CUDA reference, which accumulates in fp32: its own rounding
// error (at most what an fp32 library's is) adds to the error budget, so fp32's default
// tolerance at this reduction length is added to `base`, said in its basis.
Tolerance with_fp32_reference(Tolerance base, std::int64_t reduction_length);
// For an engine that accumulates in a reduced precision (its note: REDUCED_PRECISION_REDUCTION;
// a sum of fp16 products kept in fp16): every partial sum is rounded to that type, so an element
// whose terms cancel (a reference near zero) is off by many of its own ulps while the output as a
// whole is right. Judged on the normalized error instead: at most 2 u sqrt(n), the random-walk
// growth of n roundings of unit roundoff u (the output's type; fp16's for wider outputs), capped
// at 0.5 (a wrong output sits near 1 or above).
Tolerance reduced_precision_tolerance(Tolerance base, DataType output_type, std::int64_t reduction_length);

// The second chance of an elementwise failure in a contraction (convolution, matmul): a library
// that keeps partial sums of an output in the output's type (split-K, tile partials) is off by
// about u·Σ|partials| <= u·Σ|a_i·b_i| at an element whose terms cancel, however small the
// output; 2 u allows two such roundings (u: the output's unit roundoff; fp16's for a wider
// output of an fp16 sum is the reduced-precision note's case, judged normwise). A reference
// that sums in fp32 (gpu-fp32) adds its own error, sqrt(n)·u32·Σ|a·b| (Higham and Mary's
// probabilistic bound, 2019). A missing or wrong term (|a_i·b_i| ~ Σ|a·b| / n) stays outside.
Tolerance componentwise_tolerance(Tolerance base, DataType output_type, std::int64_t reduction_length,
                                  bool fp32_reference);
// Unit roundoff of a floating type (fp32 2^-24, fp16 2^-11, bf16 2^-8, fp8 2^-4 / 2^-3); 0 for
// integers.
double unit_roundoff(DataType type);

struct CompareResult {
  bool passed = true;
  double max_abs_diff = 0, max_rel_diff = 0, norm_rel_error = 0;
  std::int64_t elements = 0, mismatches = 0, nonfinite = 0;
  std::string first_mismatch;  // e.g. "index [0,3,1,2]: got nan, expected 0.25"
};

// `magnitude` (same dims as `ref`) is read where tol.magnitude_factor > 0.
CompareResult compare_values(const Dense& out, const Dense& ref, const Tolerance& tol,
                             const Dense* magnitude = nullptr);

}  // namespace dnnbench
