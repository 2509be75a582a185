#include "tensor/compare.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <vector>

#include "tensor/parallel.hpp"

namespace dnnbench {

Tolerance default_tolerance(DataType output_type, std::int64_t reduction_length) {
  // Base values: an output rounded once to the type is off by half an ulp (fp32 6e-8, fp16
  // 4.9e-4, bf16 3.9e-3); libraries reorder sums and some down-convert, so allow a few ulps.
  double rtol = 1e-5, atol = 1e-5;
  std::string name(dtype_name(output_type));
  switch (output_type) {
    case DataType::f64:
      rtol = 1e-10, atol = 1e-10;
      break;
    case DataType::f32:
      rtol = 1e-5, atol = 1e-5;
      break;
    case DataType::f16:
      rtol = 2e-3, atol = 2e-3;
      break;
    case DataType::bf16:
      rtol = 1.6e-2, atol = 1.6e-2;
      break;
    case DataType::fp8_e4m3:  // 3 mantissa bits: one rounding is up to 2^-4 relative
      rtol = 1.25e-1, atol = 1.25e-1;
      break;
    case DataType::fp8_e5m2:  // 2 mantissa bits
      rtol = 2.5e-1, atol = 2.5e-1;
      break;
    default:
      rtol = 0, atol = 0;
      break;  // integers must match exactly
  }
  const double scale =
      std::max(1.0, std::sqrt(static_cast<double>(std::max<std::int64_t>(reduction_length, 1)) / 64.0));
  return {rtol, atol * scale, fmt::format("default {}, reduction length {}", name, reduction_length),
          std::nullopt, 0};
}

Tolerance tf32_math_tolerance(DataType output_type, std::int64_t reduction_length) {
  if (output_type != DataType::f32) return default_tolerance(output_type, reduction_length);
  auto tol = default_tolerance(DataType::f16, reduction_length);
  tol.basis = fmt::format("TF32 math on fp32 data (engine note), reduction length {}", reduction_length);
  return tol;
}

Tolerance winograd_tolerance(Tolerance base) {
  base.rtol *= kWinogradErrorFactor;
  base.atol *= kWinogradErrorFactor;
  base.basis += fmt::format(", x{} for Winograd transforms (engine note)", kWinogradErrorFactor);
  return base;
}

Tolerance with_fp32_reference(Tolerance base, std::int64_t reduction_length) {
  const Tolerance fp32 = default_tolerance(DataType::f32, reduction_length);
  base.rtol += fp32.rtol;
  // The CUDA reference sums each output in one thread, in order: every partial sum (of size
  // sqrt(k) terms) is rounded, so its error grows like n, not sqrt(n) as a library's blocked sum's
  // does. fp32's base atol at n / 64 instead of sqrt(n / 64): on the H200, fp32 backward-weights
  // convolutions (n = 25k-400k, full-precision normal inputs) differed from it by 4e-3 in every
  // engine alike (the reference's own error), against the sqrt rule's 4e-4.
  const double n = static_cast<double>(std::max<std::int64_t>(reduction_length, 64));
  base.atol += default_tolerance(DataType::f32, 1).atol * n / 64.0;
  base.basis += ", + fp32 default at n/64 for the reference's sequential fp32 sums";
  return base;
}

double unit_roundoff(DataType type) {
  // Half the spacing of 1.0's neighbours: 2^-p for p stored mantissa bits + 1.
  switch (type) {
    case DataType::f64:
      return 0x1.0p-53;
    case DataType::f32:
      return 0x1.0p-24;
    case DataType::f16:
      return 0x1.0p-11;
    case DataType::bf16:
      return 0x1.0p-8;
    case DataType::fp8_e4m3:
      return 0x1.0p-4;
    case DataType::fp8_e5m2:
      return 0x1.0p-3;
    default:
      return 0;
  }
}

Tolerance componentwise_tolerance(Tolerance base, DataType output_type, std::int64_t reduction_length,
                                  bool fp32_reference) {
  const double n = static_cast<double>(std::max<std::int64_t>(reduction_length, 1));
  base.magnitude_factor = 2 * unit_roundoff(output_type);
  if (fp32_reference) base.magnitude_factor += std::sqrt(n) * unit_roundoff(DataType::f32);
  base.basis +=
      fmt::format(", + {:.2e}·Σ|a·b| per element (componentwise: partial sums in the output's type{})",
                  base.magnitude_factor, fp32_reference ? ", the fp32 reference's sum" : "");
  return base;
}

Tolerance reduced_precision_tolerance(Tolerance base, DataType output_type, std::int64_t reduction_length) {
  // fp16's unit roundoff also for wider outputs of a reduced-precision sum.
  const double u = std::max(unit_roundoff(output_type), unit_roundoff(DataType::f16));
  const double n = static_cast<double>(std::max<std::int64_t>(reduction_length, 1));
  base.max_norm_rel = std::min(0.5, std::max(base.rtol, 2.0 * u * std::sqrt(n)));
  base.basis += fmt::format(", reduced-precision reduction (engine note): judged on norm_rel <= {:.2e}",
                            *base.max_norm_rel);
  return base;
}

namespace {

std::string index_text(const std::vector<std::int64_t>& dims, std::int64_t linear) {
  std::vector<std::int64_t> index(dims.size());
  for (std::size_t k = dims.size(); k-- > 0;) {
    index[k] = linear % dims[k];
    linear /= dims[k];
  }
  return fmt::format("[{}]", fmt::join(index, ","));
}

// The figures of one contiguous range of elements; ranges merge in order.
struct PartialCompare {
  double max_abs_diff = 0, max_rel_diff = 0, diff_sq = 0, ref_sq = 0;
  std::int64_t mismatches = 0, nonfinite = 0;
  std::int64_t first_mismatch = -1;  // its index; -1: none in the range
};

PartialCompare compare_range(const Dense& out, const Dense& ref, const Tolerance& tol, const Dense* magnitude,
                             std::int64_t begin, std::int64_t end) {
  const bool componentwise = magnitude && tol.magnitude_factor > 0;
  PartialCompare r;
  for (std::int64_t i = begin; i < end; ++i) {
    const double got = out.data[static_cast<std::size_t>(i)];
    const double want = ref.data[static_cast<std::size_t>(i)];
    bool ok;
    if (!std::isfinite(got) || !std::isfinite(want)) {
      // Non-finite values pass only when the reference has the same (NaN with NaN, same-signed Inf).
      ok = (std::isnan(got) && std::isnan(want)) || (std::isinf(got) && got == want);
      if (!ok && !std::isfinite(got)) ++r.nonfinite;
    } else {
      const double abs_diff = std::abs(got - want);
      const double rel_diff = want != 0 ? abs_diff / std::abs(want) : (abs_diff == 0 ? 0 : INFINITY);
      r.max_abs_diff = std::max(r.max_abs_diff, abs_diff);
      if (std::isfinite(rel_diff)) r.max_rel_diff = std::max(r.max_rel_diff, rel_diff);
      r.diff_sq += abs_diff * abs_diff;
      r.ref_sq += want * want;
      double limit = tol.atol + tol.rtol * std::abs(want);
      if (componentwise)
        limit += tol.magnitude_factor * std::abs(magnitude->data[static_cast<std::size_t>(i)]);
      ok = abs_diff <= limit;
    }
    if (!ok) {
      if (r.mismatches == 0) r.first_mismatch = i;
      ++r.mismatches;
    }
  }
  return r;
}

}  // namespace

CompareResult compare_values(const Dense& out, const Dense& ref, const Tolerance& tol,
                             const Dense* magnitude) {
  CompareResult r;
  r.elements = ref.size();
  if (magnitude && magnitude->dims != ref.dims) magnitude = nullptr;
  if (out.dims != ref.dims) {
    r.passed = false;
    r.first_mismatch = "shapes differ";
    return r;
  }
  // A perf-sized output (25 M elements) is compared in chunks over the cores; the chunks are
  // fixed by the element count and the thread count, so the sums are the same run to run.
  std::vector<PartialCompare> parts;
  if (ref.size() < kParallelElements) {
    parts.push_back(compare_range(out, ref, tol, magnitude, 0, ref.size()));
  } else {
    const std::int64_t chunks = std::min<std::int64_t>(ref.size(), 4 * reference_threads());
    parts.resize(static_cast<std::size_t>(chunks));
    parallel_for(chunks, [&](std::int64_t first, std::int64_t last) {
      for (std::int64_t c = first; c < last; ++c)
        parts[static_cast<std::size_t>(c)] =
            compare_range(out, ref, tol, magnitude, ref.size() * c / chunks, ref.size() * (c + 1) / chunks);
    });
  }
  double diff_sq = 0, ref_sq = 0;
  std::int64_t first = -1;
  for (const auto& p : parts) {
    r.max_abs_diff = std::max(r.max_abs_diff, p.max_abs_diff);
    r.max_rel_diff = std::max(r.max_rel_diff, p.max_rel_diff);
    diff_sq += p.diff_sq;
    ref_sq += p.ref_sq;
    r.nonfinite += p.nonfinite;
    if (first < 0 && p.first_mismatch >= 0) first = p.first_mismatch;
    r.mismatches += p.mismatches;
  }
  if (first >= 0) {
    const auto at = static_cast<std::size_t>(first);
    r.first_mismatch =
        fmt::format("index {}: got {}, expected {}", index_text(ref.dims, first), out.data[at], ref.data[at]);
    if (magnitude && tol.magnitude_factor > 0)
      r.first_mismatch += fmt::format(", Σ|a·b| {}", magnitude->data[at]);
  }
  r.norm_rel_error = ref_sq > 0 ? std::sqrt(diff_sq / ref_sq) : std::sqrt(diff_sq);
  if (r.nonfinite > 0) r.norm_rel_error = INFINITY;
  r.passed = tol.max_norm_rel ? r.nonfinite == 0 && r.norm_rel_error <= *tol.max_norm_rel : r.mismatches == 0;
  return r;
}

}  // namespace dnnbench
