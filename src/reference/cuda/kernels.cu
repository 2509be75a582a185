// The CUDA reference kernels (kernels.hpp). Index relation shared with the CPU reference
// (reference/conv.cpp): input position i = o * stride - pre_padding + r * dilation for output
// position o and kernel tap r. Each thread owns one output element and sums its terms in a fixed
// order, so results are deterministic.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "reference/cuda/kernels.hpp"

namespace dnnbench::ref::cuda {
namespace {

// Threads per block: a multiple of the warp size that keeps every SM busy on small outputs.
constexpr int kThreads = 256;

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("CUDA reference ") + what + ": " + cudaGetErrorString(status));
}

// Enough blocks to cover `count` elements, capped; the kernels loop over the rest (grid-stride).
unsigned blocks_for(std::int64_t count) {
  const std::int64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 65535 * 16 ? (blocks > 0 ? blocks : 1) : 65535 * 16);
}

void finish(const char* what) {
  check(cudaGetLastError(), what);
  check(cudaDeviceSynchronize(), what);
}

__device__ std::int64_t tap_index(const ConvDims& d, std::int64_t r0, std::int64_t r1, std::int64_t r2) {
  const std::int64_t taps = d.kernel[0] * d.kernel[1] * d.kernel[2];
  const std::int64_t t = (r0 * d.kernel[1] + r1) * d.kernel[2] + r2;
  return d.flip ? taps - 1 - t : t;
}

// Output position o with o * stride - pre + r * dilation == i along dim s, or -1 when none.
__device__ std::int64_t output_pos(const ConvDims& d, int s, std::int64_t i, std::int64_t r) {
  const std::int64_t t = i + d.pre[s] - r * d.dilation[s];
  if (t < 0 || t % d.stride[s] != 0 || t / d.stride[s] >= d.out[s]) return -1;
  return t / d.stride[s];
}

__global__ void forward_kernel(ConvDims d, const float* x, const float* w, float* y) {
  const std::int64_t out_size = d.out[0] * d.out[1] * d.out[2], in_size = d.in[0] * d.in[1] * d.in[2];
  const std::int64_t taps = d.kernel[0] * d.kernel[1] * d.kernel[2];
  const std::int64_t cg = d.c / d.groups, kg = d.k / d.groups, total = d.n * d.k * out_size;
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < total;
       e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t o2 = e % d.out[2], o1 = e / d.out[2] % d.out[1],
                       o0 = e / (d.out[2] * d.out[1]) % d.out[0];
    const std::int64_t k = e / out_size % d.k, n = e / (out_size * d.k), group = k / kg;
    float sum = 0;
    for (std::int64_t c = 0; c < cg; ++c) {
      const float* x_plane = x + (n * d.c + group * cg + c) * in_size;
      const float* w_filter = w + (k * cg + c) * taps;
      for (std::int64_t r0 = 0; r0 < d.kernel[0]; ++r0) {
        const std::int64_t i0 = o0 * d.stride[0] - d.pre[0] + r0 * d.dilation[0];
        if (i0 < 0 || i0 >= d.in[0]) continue;
        for (std::int64_t r1 = 0; r1 < d.kernel[1]; ++r1) {
          const std::int64_t i1 = o1 * d.stride[1] - d.pre[1] + r1 * d.dilation[1];
          if (i1 < 0 || i1 >= d.in[1]) continue;
          for (std::int64_t r2 = 0; r2 < d.kernel[2]; ++r2) {
            const std::int64_t i2 = o2 * d.stride[2] - d.pre[2] + r2 * d.dilation[2];
            if (i2 < 0 || i2 >= d.in[2]) continue;
            sum += x_plane[(i0 * d.in[1] + i1) * d.in[2] + i2] * w_filter[tap_index(d, r0, r1, r2)];
          }
        }
      }
    }
    y[e] = sum;
  }
}

__global__ void backward_data_kernel(ConvDims d, const float* dy, const float* w, float* dx) {
  const std::int64_t out_size = d.out[0] * d.out[1] * d.out[2], in_size = d.in[0] * d.in[1] * d.in[2];
  const std::int64_t taps = d.kernel[0] * d.kernel[1] * d.kernel[2];
  const std::int64_t cg = d.c / d.groups, kg = d.k / d.groups, total = d.n * d.c * in_size;
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < total;
       e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i2 = e % d.in[2], i1 = e / d.in[2] % d.in[1], i0 = e / (d.in[2] * d.in[1]) % d.in[0];
    const std::int64_t c = e / in_size % d.c, n = e / (in_size * d.c), group = c / cg;
    float sum = 0;
    for (std::int64_t kk = 0; kk < kg; ++kk) {
      const std::int64_t k = group * kg + kk;
      const float* dy_plane = dy + (n * d.k + k) * out_size;
      const float* w_filter = w + (k * cg + c % cg) * taps;
      for (std::int64_t r0 = 0; r0 < d.kernel[0]; ++r0) {
        const std::int64_t o0 = output_pos(d, 0, i0, r0);
        if (o0 < 0) continue;
        for (std::int64_t r1 = 0; r1 < d.kernel[1]; ++r1) {
          const std::int64_t o1 = output_pos(d, 1, i1, r1);
          if (o1 < 0) continue;
          for (std::int64_t r2 = 0; r2 < d.kernel[2]; ++r2) {
            const std::int64_t o2 = output_pos(d, 2, i2, r2);
            if (o2 < 0) continue;
            sum += dy_plane[(o0 * d.out[1] + o1) * d.out[2] + o2] * w_filter[tap_index(d, r0, r1, r2)];
          }
        }
      }
    }
    dx[e] = sum;
  }
}

// One thread per filter tap dw[k, c, r]: sums over the batch and every output position.
__global__ void backward_weights_kernel(ConvDims d, const float* x, const float* dy, float* dw) {
  const std::int64_t out_size = d.out[0] * d.out[1] * d.out[2], in_size = d.in[0] * d.in[1] * d.in[2];
  const std::int64_t taps = d.kernel[0] * d.kernel[1] * d.kernel[2];
  const std::int64_t cg = d.c / d.groups, kg = d.k / d.groups, total = d.k * cg * taps;
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < total;
       e += std::int64_t{gridDim.x} * blockDim.x) {
    // dw is stored [k, c, taps]; a flipped filter's element t holds tap taps - 1 - t.
    const std::int64_t stored = e % taps, t = d.flip ? taps - 1 - stored : stored;
    const std::int64_t r2 = t % d.kernel[2], r1 = t / d.kernel[2] % d.kernel[1],
                       r0 = t / (d.kernel[2] * d.kernel[1]);
    const std::int64_t c_in_group = e / taps % cg, k = e / (taps * cg);
    const std::int64_t c = (k / kg) * cg + c_in_group;
    float sum = 0;
    for (std::int64_t n = 0; n < d.n; ++n) {
      const float* x_plane = x + (n * d.c + c) * in_size;
      const float* dy_plane = dy + (n * d.k + k) * out_size;
      for (std::int64_t o0 = 0; o0 < d.out[0]; ++o0) {
        const std::int64_t i0 = o0 * d.stride[0] - d.pre[0] + r0 * d.dilation[0];
        if (i0 < 0 || i0 >= d.in[0]) continue;
        for (std::int64_t o1 = 0; o1 < d.out[1]; ++o1) {
          const std::int64_t i1 = o1 * d.stride[1] - d.pre[1] + r1 * d.dilation[1];
          if (i1 < 0 || i1 >= d.in[1]) continue;
          for (std::int64_t o2 = 0; o2 < d.out[2]; ++o2) {
            const std::int64_t i2 = o2 * d.stride[2] - d.pre[2] + r2 * d.dilation[2];
            if (i2 < 0 || i2 >= d.in[2]) continue;
            sum +=
                dy_plane[(o0 * d.out[1] + o1) * d.out[2] + o2] * x_plane[(i0 * d.in[1] + i1) * d.in[2] + i2];
          }
        }
      }
    }
    dw[e] = sum;
  }
}

__global__ void matmul_kernel(MatmulDims d, const std::int64_t* a_batch, const std::int64_t* b_batch,
                              const float* a, const float* b, float* c) {
  const std::int64_t total = d.batches * d.m * d.n;
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < total;
       e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t col = e % d.n, row = e / d.n % d.m, batch = e / (d.n * d.m);
    const float* a_row = a + (a_batch[batch] * d.m + row) * d.k;
    const float* b_col = b + b_batch[batch] * d.k * d.n + col;
    float sum = 0;
    for (std::int64_t kk = 0; kk < d.k; ++kk) sum += a_row[kk] * b_col[kk * d.n];
    c[e] = sum;
  }
}

}  // namespace

void conv_forward(const ConvDims& d, const float* x, const float* w, float* y) {
  const std::int64_t total = d.n * d.k * d.out[0] * d.out[1] * d.out[2];
  forward_kernel<<<blocks_for(total), kThreads>>>(d, x, w, y);
  finish("convolution forward");
}

void conv_backward_data(const ConvDims& d, const float* dy, const float* w, float* dx) {
  const std::int64_t total = d.n * d.c * d.in[0] * d.in[1] * d.in[2];
  backward_data_kernel<<<blocks_for(total), kThreads>>>(d, dy, w, dx);
  finish("convolution backward data");
}

void conv_backward_weights(const ConvDims& d, const float* x, const float* dy, float* dw) {
  const std::int64_t total = d.k * (d.c / d.groups) * d.kernel[0] * d.kernel[1] * d.kernel[2];
  backward_weights_kernel<<<blocks_for(total), kThreads>>>(d, x, dy, dw);
  finish("convolution backward weights");
}

void matmul(const MatmulDims& d, const std::int64_t* a_batch, const std::int64_t* b_batch, const float* a,
            const float* b, float* c) {
  matmul_kernel<<<blocks_for(d.batches * d.m * d.n), kThreads>>>(d, a_batch, b_batch, a, b, c);
  finish("matmul");
}

}  // namespace dnnbench::ref::cuda
