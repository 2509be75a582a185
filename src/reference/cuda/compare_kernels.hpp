#pragma once
// The device side of reference/device_compare.hpp: kept free of dnnbench's other headers so that
// nvcc compiles it with its own flags.
#include <cstdint>

namespace dnnbench::ref::cuda {

enum class OutputType : int { f32, f16, bf16, f64 };

constexpr int kMaxCompareRank = 8;

// The output's storage: logical dims and element strides (TensorDesc's), rank <= kMaxCompareRank.
struct OutputLayout {
  int rank = 0;
  long long dims[kMaxCompareRank] = {};
  long long strides[kMaxCompareRank] = {};
};

// tensor/compare.cpp's PartialCompare: the figures of a set of elements. Trivial (no member
// initializers), so that the kernel can hold an array of them in shared memory.
struct ComparePartial {
  double max_abs_diff, max_rel_diff, diff_sq, ref_sq;
  long long mismatches, nonfinite;
  long long first_mismatch;  // the lowest failing logical index; -1: none
};
// The figures of no element.
inline constexpr ComparePartial kNoElements{0, 0, 0, 0, 0, 0, -1};

// Compares `count` logical elements of `out` (device memory, `type`, `layout`) with `ref` (device
// memory, fp64, dense logical order) under |out - ref| <= atol + rtol * |ref|. Runs on the
// default stream and waits for it; throws std::runtime_error on a CUDA error.
ComparePartial compare(const void* out, OutputType type, const OutputLayout& layout, const double* ref,
                       long long count, double rtol, double atol);

}  // namespace dnnbench::ref::cuda
