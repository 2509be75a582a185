#pragma once
// CUDA reference kernels: direct loops, one thread per output element, fp32 data accumulated in
// fp32. Obviously correct rather than fast; they let perf-sized convolutions and matmuls be
// checked in seconds instead of the fp64 CPU reference's minutes. All pointers are device
// pointers to dense row-major (logical order) buffers. Each call runs on the default stream and
// waits for it; throws std::runtime_error on a CUDA error.
#include <cstdint>

namespace dnnbench::ref::cuda {

// A convolution's geometry with spatial dims padded to three (see reference/conv_geometry.hpp).
// x: [n, c, in...], w: [k, c / groups, kernel...], y: [n, k, out...].
struct ConvDims {
  std::int64_t n = 0, c = 0, k = 0, groups = 1;
  std::int64_t in[3]{}, out[3]{}, kernel[3]{}, stride[3]{}, pre[3]{}, dilation[3]{};
  bool flip = false;  // CONVOLUTION mode: the filter reversed along every spatial dim
};

void conv_forward(const ConvDims& d, const float* x, const float* w, float* y);
void conv_backward_data(const ConvDims& d, const float* dy, const float* w, float* dx);
void conv_backward_weights(const ConvDims& d, const float* x, const float* dy, float* dw);

// c[b, m, n] = sum over k of a[a_batch[b], m, k] * b[b_batch[b], k, n]; a_batch and b_batch are
// device arrays of `batches` entries (broadcast batch dims resolved on the host).
struct MatmulDims {
  std::int64_t batches = 1, m = 0, n = 0, k = 0;
};

void matmul(const MatmulDims& d, const std::int64_t* a_batch, const std::int64_t* b_batch, const float* a,
            const float* b, float* c);

// Attention (sdpa_kernels.cu; formulas in reference/sdpa.cpp). q [b, h_q, s_q, d_qk],
// k [b, h_k, s_kv, d_qk], v [b, h_v, s_kv, d_v], o and do [b, h_q, s_q, d_v], stats and the
// per-row buffers [b, h_q, s_q]; bias (nullable) is attn_mask expanded to [b, h_q, s_q, s_kv];
// seq_q / seq_kv hold each batch's actual lengths. The mask fields mirror SdpaParams.
struct SdpaDims {
  std::int64_t b = 0, h_q = 0, h_k = 0, h_v = 0, s_q = 0, s_kv = 0, d_qk = 0, d_v = 0;
  float scale = 1;
  bool bottom_right = false, has_left = false, has_right = false;
  std::int64_t left = 0, right = 0;
};

// stats may be null.
void sdpa_forward(const SdpaDims& d, const std::int64_t* seq_q, const std::int64_t* seq_kv, const float* q,
                  const float* k, const float* v, const float* bias, float* o, float* stats);
// dk and dv are summed over the query heads sharing a K/V head; `work` holds
// b * h_q * s_kv * (d_qk + d_v) + b * h_q * s_q floats.
void sdpa_backward(const SdpaDims& d, const std::int64_t* seq_q, const std::int64_t* seq_kv, const float* q,
                   const float* k, const float* v, const float* o, const float* dout, const float* stats,
                   const float* bias, float* dq, float* dk, float* dv, float* work);

}  // namespace dnnbench::ref::cuda
