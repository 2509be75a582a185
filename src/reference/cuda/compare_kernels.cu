// The comparison of a device output with a device copy of the reference (tensor/compare.cpp's
// rule, element for element): one pass over the output in its own dtype and strides, per-block
// partial figures, combined on the host in block order so that the sums do not depend on
// scheduling.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference/cuda/compare_kernels.hpp"

namespace dnnbench::ref::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 1024;

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("device comparison: ") + what + ": " + cudaGetErrorString(status));
}

// `b`'s elements into `a`'s: in the kernel's block reduction and in the host's sum of blocks.
__host__ __device__ void merge(ComparePartial& a, const ComparePartial& b) {
  a.max_abs_diff = fmax(a.max_abs_diff, b.max_abs_diff);
  a.max_rel_diff = fmax(a.max_rel_diff, b.max_rel_diff);
  a.diff_sq += b.diff_sq;
  a.ref_sq += b.ref_sq;
  a.mismatches += b.mismatches;
  a.nonfinite += b.nonfinite;
  if (b.first_mismatch >= 0 && (a.first_mismatch < 0 || b.first_mismatch < a.first_mismatch))
    a.first_mismatch = b.first_mismatch;
}

__device__ double load(const void* data, OutputType type, long long offset) {
  switch (type) {
    case OutputType::f32:
      return static_cast<const float*>(data)[offset];
    case OutputType::f16:
      return __half2float(static_cast<const __half*>(data)[offset]);
    case OutputType::bf16:
      return __bfloat162float(static_cast<const __nv_bfloat16*>(data)[offset]);
    case OutputType::f64:
      return static_cast<const double*>(data)[offset];
  }
  return 0;
}

__device__ long long storage_offset(const OutputLayout& layout, long long linear) {
  long long offset = 0;
  for (int k = layout.rank - 1; k >= 0; --k) {
    offset += (linear % layout.dims[k]) * layout.strides[k];
    linear /= layout.dims[k];
  }
  return offset;
}

__global__ void compare_kernel(const void* out, OutputType type, OutputLayout layout, const double* ref,
                               long long count, double rtol, double atol, ComparePartial* partials) {
  ComparePartial mine = kNoElements;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const double got = load(out, type, storage_offset(layout, i));
    const double want = ref[i];
    bool ok;
    if (!isfinite(got) || !isfinite(want)) {
      // Non-finite values pass only when the reference has the same (NaN with NaN, same-signed Inf).
      ok = (isnan(got) && isnan(want)) || (isinf(got) && got == want);
      if (!ok && !isfinite(got)) ++mine.nonfinite;
    } else {
      const double abs_diff = fabs(got - want);
      const double rel_diff = want != 0 ? abs_diff / fabs(want) : (abs_diff == 0 ? 0.0 : INFINITY);
      mine.max_abs_diff = fmax(mine.max_abs_diff, abs_diff);
      if (isfinite(rel_diff)) mine.max_rel_diff = fmax(mine.max_rel_diff, rel_diff);
      mine.diff_sq += abs_diff * abs_diff;
      mine.ref_sq += want * want;
      ok = abs_diff <= atol + rtol * fabs(want);
    }
    if (!ok) {
      if (mine.first_mismatch < 0 || i < mine.first_mismatch) mine.first_mismatch = i;
      ++mine.mismatches;
    }
  }
  __shared__ ComparePartial shared[kThreads];
  shared[threadIdx.x] = mine;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half) merge(shared[threadIdx.x], shared[threadIdx.x + half]);
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = shared[0];
}

}  // namespace

ComparePartial compare(const void* out, OutputType type, const OutputLayout& layout, const double* ref,
                       long long count, double rtol, double atol) {
  ComparePartial total = kNoElements;
  if (count <= 0) return total;
  const long long wanted = (count + kThreads - 1) / kThreads;
  const int blocks = static_cast<int>(wanted < kMaxBlocks ? wanted : kMaxBlocks);
  ComparePartial* partials = nullptr;
  check(cudaMalloc(&partials, sizeof(ComparePartial) * static_cast<std::size_t>(blocks)), "allocating");
  compare_kernel<<<blocks, kThreads>>>(out, type, layout, ref, count, rtol, atol, partials);
  std::vector<ComparePartial> host(static_cast<std::size_t>(blocks));
  cudaError_t status = cudaGetLastError();
  if (status == cudaSuccess)
    status = cudaMemcpy(host.data(), partials, sizeof(ComparePartial) * host.size(), cudaMemcpyDeviceToHost);
  cudaFree(partials);
  check(status, "running the comparison");
  for (const auto& p : host) merge(total, p);
  return total;
}

}  // namespace dnnbench::ref::cuda
