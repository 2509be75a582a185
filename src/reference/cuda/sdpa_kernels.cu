// The CUDA reference for attention: one thread block per query row (forward, dq) or per key row
// (dk, dv), that row's scores kept in shared memory, dot products one warp per key (coalesced
// reads of k and v rows), sums in fp32 in a fixed order. No tiling tricks: a reference that is
// obviously the formula in reference/sdpa.cpp, fast enough to check perf-sized graphs in seconds.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "reference/cuda/kernels.hpp"

namespace dnnbench::ref::cuda {
namespace {

// Four warps per block: enough to cover one row's keys, small enough to keep many rows in flight.
constexpr int kThreads = 128;
constexpr int kWarps = kThreads / 32;

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("CUDA reference ") + what + ": " + cudaGetErrorString(status));
}

// The keys [begin, end) query row i attends to (the same rule as sdpa_key_range in
// graph/ops/sdpa_mask.hpp, restated for device code).
__device__ void key_range(const SdpaDims& d, std::int64_t i, std::int64_t sq, std::int64_t skv,
                          std::int64_t& begin, std::int64_t& end) {
  begin = 0, end = 0;
  if (i >= sq) return;
  const std::int64_t shift = d.bottom_right ? skv - sq : 0;
  end = skv;
  if (d.has_right) end = min(end, i + shift + d.right + 1);
  if (d.has_left) begin = max(begin, i + shift - d.left + 1);
}

__device__ float warp_sum(float v) {
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

// Block-wide reduction of one value per thread (max or sum); every thread gets the result.
template <bool kMax>
__device__ float block_reduce(float v, float* scratch) {
  for (int off = 16; off > 0; off >>= 1) {
    const float o = __shfl_xor_sync(0xffffffffu, v, off);
    v = kMax ? fmaxf(v, o) : v + o;
  }
  __syncthreads();
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
  __syncthreads();
  float r = scratch[0];
  for (int w = 1; w < kWarps; ++w) r = kMax ? fmaxf(r, scratch[w]) : r + scratch[w];
  return r;
}

__device__ float row_dot(const float* a, const float* b, std::int64_t n) {
  float sum = 0;
  for (std::int64_t e = threadIdx.x % 32; e < n; e += 32) sum += a[e] * b[e];
  return warp_sum(sum);
}

// s[j] = scale * q_row . k_j + bias for the kept keys of row (b, h, i); returns the row's max.
__device__ float scores(const SdpaDims& d, const float* q_row, const float* k, const float* bias,
                        std::int64_t b, std::int64_t h, std::int64_t i, std::int64_t j0, std::int64_t j1,
                        float* s, float* scratch) {
  const std::int64_t hk = h / (d.h_q / d.h_k);
  const int warp = threadIdx.x / 32;
  for (std::int64_t j = j0 + warp; j < j1; j += kWarps) {
    float v = d.scale * row_dot(q_row, k + ((b * d.h_k + hk) * d.s_kv + j) * d.d_qk, d.d_qk);
    if (bias) v += bias[((b * d.h_q + h) * d.s_q + i) * d.s_kv + j];
    if (threadIdx.x % 32 == 0) s[j - j0] = v;
  }
  __syncthreads();
  float m = -INFINITY;
  for (std::int64_t j = j0 + threadIdx.x; j < j1; j += kThreads) m = fmaxf(m, s[j - j0]);
  return block_reduce<true>(m, scratch);
}

// One block per query row: softmax over its kept keys, o = P v, stats = logsumexp.
__global__ void forward_kernel(SdpaDims d, const std::int64_t* seq_q, const std::int64_t* seq_kv,
                               const float* q, const float* k, const float* v, const float* bias, float* o,
                               float* stats) {
  extern __shared__ float s[];
  __shared__ float scratch[kWarps];
  const std::int64_t row = blockIdx.x, i = row % d.s_q, bh = row / d.s_q, h = bh % d.h_q, b = bh / d.h_q;
  std::int64_t j0, j1;
  key_range(d, i, seq_q[b], seq_kv[b], j0, j1);
  const float* q_row = q + row * d.d_qk;
  const float m = scores(d, q_row, k, bias, b, h, i, j0, j1, s, scratch);
  float* out = o + row * d.d_v;
  if (m == -INFINITY) {  // no key kept: o = 0, stats = -inf (as the CPU reference)
    for (std::int64_t e = threadIdx.x; e < d.d_v; e += kThreads) out[e] = 0;
    if (stats && threadIdx.x == 0) stats[row] = -INFINITY;
    return;
  }
  float partial = 0;
  for (std::int64_t j = j0 + threadIdx.x; j < j1; j += kThreads) partial += expf(s[j - j0] - m);
  const float lse = m + logf(block_reduce<false>(partial, scratch));
  for (std::int64_t j = j0 + threadIdx.x; j < j1; j += kThreads) s[j - j0] = expf(s[j - j0] - lse);
  __syncthreads();
  const std::int64_t hv = h / (d.h_q / d.h_v);
  const float* v_head = v + (b * d.h_v + hv) * d.s_kv * d.d_v;
  for (std::int64_t e = threadIdx.x; e < d.d_v; e += kThreads) {
    float acc = 0;
    for (std::int64_t j = j0; j < j1; ++j) acc += s[j - j0] * v_head[j * d.d_v + e];
    out[e] = acc;
  }
  if (stats && threadIdx.x == 0) stats[row] = lse;
}

// One block per query row: D_i = do_i . o_i, ds_ij = p_ij (do_i . v_j - D_i), dq_i = scale ds k.
__global__ void dq_kernel(SdpaDims d, const std::int64_t* seq_q, const std::int64_t* seq_kv, const float* q,
                          const float* k, const float* v, const float* o, const float* dout,
                          const float* stats, const float* bias, float* dq, float* delta) {
  extern __shared__ float s[];
  __shared__ float scratch[kWarps];
  const std::int64_t row = blockIdx.x, i = row % d.s_q, bh = row / d.s_q, h = bh % d.h_q, b = bh / d.h_q;
  std::int64_t j0, j1;
  key_range(d, i, seq_q[b], seq_kv[b], j0, j1);
  const float* do_row = dout + row * d.d_v;
  float part = 0;
  for (std::int64_t e = threadIdx.x; e < d.d_v; e += kThreads) part += do_row[e] * o[row * d.d_v + e];
  const float di = block_reduce<false>(part, scratch);
  if (threadIdx.x == 0) delta[row] = di;
  scores(d, q + row * d.d_qk, k, bias, b, h, i, j0, j1, s, scratch);
  const float lse = stats[row];
  const std::int64_t hv = h / (d.h_q / d.h_v), hk = h / (d.h_q / d.h_k);
  const int warp = threadIdx.x / 32;
  for (std::int64_t j = j0 + warp; j < j1; j += kWarps) {
    const float dp = row_dot(do_row, v + ((b * d.h_v + hv) * d.s_kv + j) * d.d_v, d.d_v);
    const float sj = s[j - j0];
    const float p = (sj == -INFINITY || lse == -INFINITY) ? 0.f : expf(sj - lse);
    __syncwarp();
    if (threadIdx.x % 32 == 0) s[j - j0] = p * (dp - di);
  }
  __syncthreads();
  const float* k_head = k + (b * d.h_k + hk) * d.s_kv * d.d_qk;
  for (std::int64_t e = threadIdx.x; e < d.d_qk; e += kThreads) {
    float acc = 0;
    for (std::int64_t j = j0; j < j1; ++j) acc += s[j - j0] * k_head[j * d.d_qk + e];
    dq[row * d.d_qk + e] = d.scale * acc;
  }
}

// One block per (b, query head, key j): over the query rows that keep key j,
// dk_j = scale sum_i ds_ij q_i and dv_j = sum_i p_ij do_i, written per query head.
// Shared memory: p then ds, s_q floats each.
__global__ void dkv_kernel(SdpaDims d, const std::int64_t* seq_q, const std::int64_t* seq_kv, const float* q,
                           const float* k, const float* v, const float* dout, const float* stats,
                           const float* bias, const float* delta, float* dk_h, float* dv_h) {
  extern __shared__ float s[];
  float* p = s;
  float* ds = s + d.s_q;
  const std::int64_t key = blockIdx.x, j = key % d.s_kv, bh = key / d.s_kv, h = bh % d.h_q, b = bh / d.h_q;
  const std::int64_t hk = h / (d.h_q / d.h_k), hv = h / (d.h_q / d.h_v);
  const float* k_row = k + ((b * d.h_k + hk) * d.s_kv + j) * d.d_qk;
  const float* v_row = v + ((b * d.h_v + hv) * d.s_kv + j) * d.d_v;
  const int warp = threadIdx.x / 32;
  for (std::int64_t i = warp; i < d.s_q; i += kWarps) {
    std::int64_t j0, j1;
    key_range(d, i, seq_q[b], seq_kv[b], j0, j1);
    const std::int64_t row = bh * d.s_q + i;
    float pi = 0, dsi = 0;
    if (j >= j0 && j < j1) {  // warp-uniform
      float sv = d.scale * row_dot(q + row * d.d_qk, k_row, d.d_qk);
      if (bias) sv += bias[row * d.s_kv + j];
      const float dp = row_dot(dout + row * d.d_v, v_row, d.d_v);
      const float lse = stats[row];
      pi = (sv == -INFINITY || lse == -INFINITY) ? 0.f : expf(sv - lse);
      dsi = pi * (dp - delta[row]);
    }
    if (threadIdx.x % 32 == 0) p[i] = pi, ds[i] = dsi;
  }
  __syncthreads();
  const float* q_head = q + bh * d.s_q * d.d_qk;
  const float* do_head = dout + bh * d.s_q * d.d_v;
  for (std::int64_t e = threadIdx.x; e < d.d_qk; e += kThreads) {
    float acc = 0;
    for (std::int64_t i = 0; i < d.s_q; ++i) acc += ds[i] * q_head[i * d.d_qk + e];
    dk_h[key * d.d_qk + e] = d.scale * acc;
  }
  for (std::int64_t e = threadIdx.x; e < d.d_v; e += kThreads) {
    float acc = 0;
    for (std::int64_t i = 0; i < d.s_q; ++i) acc += p[i] * do_head[i * d.d_v + e];
    dv_h[key * d.d_v + e] = acc;
  }
}

// Sums per-query-head partials [b, h_q, s_kv, dim] into the shared heads [b, h_kv, s_kv, dim].
__global__ void group_sum_kernel(std::int64_t b_count, std::int64_t h_q, std::int64_t h_kv, std::int64_t rows,
                                 std::int64_t dim, const float* partial, float* out) {
  const std::int64_t total = b_count * h_kv * rows * dim, group = h_q / h_kv;
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < total;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t inner = x % (rows * dim), hk = x / (rows * dim) % h_kv, b = x / (rows * dim * h_kv);
    float acc = 0;
    for (std::int64_t g = 0; g < group; ++g)
      acc += partial[((b * h_q + hk * group + g) * rows * dim) + inner];
    out[x] = acc;
  }
}

std::size_t shared_bytes(std::int64_t floats, const void* kernel) {
  const std::size_t bytes = static_cast<std::size_t>(floats) * sizeof(float);
  // Above the default 48 KiB a kernel must opt in (H200: up to 227 KiB per block).
  check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)),
        "attention: shared memory for one row of scores");
  return bytes;
}

void finish(const char* what) {
  check(cudaGetLastError(), what);
  check(cudaDeviceSynchronize(), what);
}

}  // namespace

void sdpa_forward(const SdpaDims& d, const std::int64_t* seq_q, const std::int64_t* seq_kv, const float* q,
                  const float* k, const float* v, const float* bias, float* o, float* stats) {
  const std::int64_t rows = d.b * d.h_q * d.s_q;
  if (rows == 0) return;
  const std::size_t smem = shared_bytes(d.s_kv, reinterpret_cast<const void*>(forward_kernel));
  forward_kernel<<<static_cast<unsigned>(rows), kThreads, smem>>>(d, seq_q, seq_kv, q, k, v, bias, o, stats);
  finish("attention forward");
}

void sdpa_backward(const SdpaDims& d, const std::int64_t* seq_q, const std::int64_t* seq_kv, const float* q,
                   const float* k, const float* v, const float* o, const float* dout, const float* stats,
                   const float* bias, float* dq, float* dk, float* dv, float* work) {
  const std::int64_t rows = d.b * d.h_q * d.s_q, keys = d.b * d.h_q * d.s_kv;
  if (rows == 0 || keys == 0) return;
  float* delta = work;
  float* dk_h = delta + rows;
  float* dv_h = dk_h + keys * d.d_qk;
  const std::size_t smem_q = shared_bytes(d.s_kv, reinterpret_cast<const void*>(dq_kernel));
  dq_kernel<<<static_cast<unsigned>(rows), kThreads, smem_q>>>(d, seq_q, seq_kv, q, k, v, o, dout, stats,
                                                               bias, dq, delta);
  finish("attention backward (dq)");
  const std::size_t smem_k = shared_bytes(2 * d.s_q, reinterpret_cast<const void*>(dkv_kernel));
  dkv_kernel<<<static_cast<unsigned>(keys), kThreads, smem_k>>>(d, seq_q, seq_kv, q, k, v, dout, stats, bias,
                                                                delta, dk_h, dv_h);
  finish("attention backward (dk, dv)");
  const auto blocks = [](std::int64_t n) {
    return static_cast<unsigned>(std::min<std::int64_t>((n + 255) / 256, 65535));
  };
  group_sum_kernel<<<blocks(d.b * d.h_k * d.s_kv * d.d_qk), 256>>>(d.b, d.h_q, d.h_k, d.s_kv, d.d_qk, dk_h,
                                                                   dk);
  group_sum_kernel<<<blocks(d.b * d.h_v * d.s_kv * d.d_v), 256>>>(d.b, d.h_q, d.h_v, d.s_kv, d.d_v, dv_h, dv);
  finish("attention backward (K/V head sums)");
}

}  // namespace dnnbench::ref::cuda
