// The CUDA reference's host side: reads a node's logical values (Dense, fp64) as fp32, runs the
// kernel on device copies, and stores the result back as the node's output value.
#include "reference/gpu_reference.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "reference/broadcast.hpp"
#include "reference/conv_geometry.hpp"
#include "reference/cuda/kernels.hpp"
#include "reference/node_io.hpp"
#include "reference/sdpa.hpp"

namespace dnnbench {
namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("CUDA reference: ") + what + ": " + cudaGetErrorString(status));
}

// Device memory of `count` elements of T, freed on destruction.
template <class T>
class DeviceArray {
 public:
  explicit DeviceArray(std::size_t count) : count_(std::max<std::size_t>(count, 1)) {
    check(cudaMalloc(&data_, count_ * sizeof(T)), "allocating device memory");
  }
  DeviceArray(DeviceArray&& other) noexcept
      : count_(other.count_), data_(std::exchange(other.data_, nullptr)) {}
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray& operator=(DeviceArray&&) = delete;
  ~DeviceArray() { cudaFree(data_); }
  T* get() const { return data_; }
  void upload(const std::vector<T>& host) {
    check(cudaMemcpy(data_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "copy to device");
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    check(cudaMemcpy(host.data(), data_, count_ * sizeof(T), cudaMemcpyDeviceToHost), "copy to host");
    return host;
  }

 private:
  std::size_t count_;
  T* data_ = nullptr;
};

// A logical value rounded to fp32 on the device (exact for fp32, fp16 and bf16 data).
DeviceArray<float> to_device(const Dense& value) {
  DeviceArray<float> d(static_cast<std::size_t>(value.size()));
  d.upload(std::vector<float>(value.data.begin(), value.data.end()));
  return d;
}

void from_device(const DeviceArray<float>& d, Dense& value) {
  const auto host = d.download();
  std::copy_n(host.begin(), value.data.size(), value.data.begin());
}

bool reads_or_writes_fp64(const Graph& graph, const Node& node) {
  for (const auto* ports : {&node.inputs, &node.outputs})
    for (const auto& port : *ports)
      if (graph.tensor(port.uid).dtype == DataType::f64) return true;
  return false;
}

ref::cuda::ConvDims conv_dims(const ref::ConvGeometry& g, bool cross_correlation) {
  ref::cuda::ConvDims d;
  d.n = g.n, d.c = g.c, d.k = g.k, d.groups = g.groups;
  for (int s = 0; s < ref::kSpatial; ++s) {
    d.in[s] = g.in[s], d.out[s] = g.out[s], d.kernel[s] = g.kernel[s];
    d.stride[s] = g.stride[s], d.pre[s] = g.pre[s], d.dilation[s] = g.dilation[s];
  }
  d.flip = !cross_correlation;
  return d;
}

void conv(const Graph& graph, const Node& node, Values& values) {
  const auto& p = ref::params<ConvParams>(node);
  switch (node.kind) {
    case OpKind::conv_fwd: {
      const Dense& x = ref::input(graph, node, values, "x");
      const Dense& w = ref::input(graph, node, values, "w");
      Dense& y = ref::output(graph, node, values, "y");
      const auto d = conv_dims(ref::conv_geometry(node, p, x.dims, w.dims, y.dims), p.cross_correlation);
      auto dx = to_device(x), dw = to_device(w);
      DeviceArray<float> dy(static_cast<std::size_t>(y.size()));
      ref::cuda::conv_forward(d, dx.get(), dw.get(), dy.get());
      from_device(dy, y);
      return;
    }
    case OpKind::conv_bwd_data: {
      const Dense& dy = ref::input(graph, node, values, "dy");
      const Dense& w = ref::input(graph, node, values, "w");
      Dense& dx = ref::output(graph, node, values, "dx");
      const auto d = conv_dims(ref::conv_geometry(node, p, dx.dims, w.dims, dy.dims), p.cross_correlation);
      auto d_dy = to_device(dy), d_w = to_device(w);
      DeviceArray<float> d_dx(static_cast<std::size_t>(dx.size()));
      ref::cuda::conv_backward_data(d, d_dy.get(), d_w.get(), d_dx.get());
      from_device(d_dx, dx);
      return;
    }
    case OpKind::conv_bwd_weights: {
      const Dense& x = ref::input(graph, node, values, "x");
      const Dense& dy = ref::input(graph, node, values, "dy");
      Dense& dw = ref::output(graph, node, values, "dw");
      const auto d = conv_dims(ref::conv_geometry(node, p, x.dims, dw.dims, dy.dims), p.cross_correlation);
      auto d_x = to_device(x), d_dy = to_device(dy);
      DeviceArray<float> d_dw(static_cast<std::size_t>(dw.size()));
      ref::cuda::conv_backward_weights(d, d_x.get(), d_dy.get(), d_dw.get());
      from_device(d_dw, dw);
      return;
    }
    default:
      ref::fail(node, "not a convolution");
  }
}

std::vector<std::int64_t> batch_dims(const std::vector<std::int64_t>& dims) {
  return {dims.begin(), dims.end() - 2};
}

void matmul(const Graph& graph, const Node& node, Values& values) {
  const Dense& a = ref::input(graph, node, values, "a");
  const Dense& b = ref::input(graph, node, values, "b");
  Dense& c = ref::output(graph, node, values, "c");
  if (a.rank() < 2 || b.rank() < 2 || c.rank() < 2)
    ref::fail(node, "matmul needs a, b and c of rank 2 or more");
  ref::cuda::MatmulDims d;
  d.m = a.dims[a.rank() - 2], d.k = a.dims[a.rank() - 1], d.n = b.dims[b.rank() - 1];
  if (b.dims[b.rank() - 2] != d.k || c.dims[c.rank() - 2] != d.m || c.dims[c.rank() - 1] != d.n)
    ref::fail(node, "a, b and c are not [..., M, K], [..., K, N] and [..., M, N]");
  const auto c_batch = batch_dims(c.dims), a_batch = batch_dims(a.dims), b_batch = batch_dims(b.dims);
  if (!ref::broadcastable(a_batch, c_batch) || !ref::broadcastable(b_batch, c_batch))
    ref::fail(node, "batch dims of a and b do not broadcast to c's");
  const ref::BroadcastMap a_of(a_batch, c_batch), b_of(b_batch, c_batch);
  d.batches = product(c_batch);
  std::vector<std::int64_t> a_index(static_cast<std::size_t>(d.batches)), b_index(a_index.size());
  for (std::int64_t i = 0; i < d.batches; ++i)
    a_index[static_cast<std::size_t>(i)] = a_of(i), b_index[static_cast<std::size_t>(i)] = b_of(i);
  DeviceArray<std::int64_t> d_a_index(a_index.size()), d_b_index(b_index.size());
  d_a_index.upload(a_index);
  d_b_index.upload(b_index);
  auto d_a = to_device(a), d_b = to_device(b);
  DeviceArray<float> d_c(static_cast<std::size_t>(c.size()));
  ref::cuda::matmul(d, d_a_index.get(), d_b_index.get(), d_a.get(), d_b.get(), d_c.get());
  from_device(d_c, c);
}

void sdpa(const Graph& graph, const Node& node, Values& values) {
  const auto pr = ref::sdpa_problem(graph, node, values);
  const SdpaShape& s = pr.shape;
  ref::cuda::SdpaDims d;
  d.b = s.b, d.h_q = s.h_q, d.h_k = s.h_k, d.h_v = s.h_v, d.s_q = s.s_q, d.s_kv = s.s_kv;
  d.d_qk = s.d_qk, d.d_v = s.d_v, d.scale = static_cast<float>(pr.scale);
  d.bottom_right = pr.params.alignment == DiagonalAlignment::bottom_right;
  d.has_left = pr.params.left_bound.has_value(), d.left = pr.params.left_bound.value_or(0);
  d.has_right = pr.params.right_bound.has_value(), d.right = pr.params.right_bound.value_or(0);
  DeviceArray<std::int64_t> seq_q(pr.seq_q.size()), seq_kv(pr.seq_kv.size());
  seq_q.upload(pr.seq_q);
  seq_kv.upload(pr.seq_kv);
  std::optional<DeviceArray<float>> bias;
  if (pr.bias) {  // expanded to the scores' shape: attention masks are small sample graphs
    std::vector<float> full(static_cast<std::size_t>(s.b * s.h_q * s.s_q * s.s_kv));
    for (std::size_t x = 0; x < full.size(); ++x) {
      const double m = pr.bias->data[static_cast<std::size_t>((*pr.bias_of)(static_cast<std::int64_t>(x)))];
      // A boolean mask becomes the additive 0 / -inf it means.
      full[x] = pr.bias_is_keep_mask ? (m != 0 ? 0.f : -INFINITY) : static_cast<float>(m);
    }
    bias.emplace(full.size());
    bias->upload(full);
  }
  const float* bias_ptr = bias ? bias->get() : nullptr;
  auto q = to_device(ref::input(graph, node, values, "q"));
  auto k = to_device(ref::input(graph, node, values, "k"));
  auto v = to_device(ref::input(graph, node, values, "v"));
  if (node.kind == OpKind::sdpa_fwd) {
    Dense& o = ref::output(graph, node, values, "o");
    Dense* stats = ref::optional_output(graph, node, values, "stats");
    DeviceArray<float> d_o(static_cast<std::size_t>(o.size()));
    DeviceArray<float> d_stats(static_cast<std::size_t>(s.b * s.h_q * s.s_q));
    ref::cuda::sdpa_forward(d, seq_q.get(), seq_kv.get(), q.get(), k.get(), v.get(), bias_ptr, d_o.get(),
                            d_stats.get());
    from_device(d_o, o);
    if (stats) from_device(d_stats, *stats);
    return;
  }
  auto o = to_device(ref::input(graph, node, values, "o"));
  auto dout = to_device(ref::input(graph, node, values, "do"));
  auto stats = to_device(ref::input(graph, node, values, "stats"));
  Dense& dq = ref::output(graph, node, values, "dq");
  Dense& dk = ref::output(graph, node, values, "dk");
  Dense& dv = ref::output(graph, node, values, "dv");
  DeviceArray<float> d_dq(static_cast<std::size_t>(dq.size())), d_dk(static_cast<std::size_t>(dk.size())),
      d_dv(static_cast<std::size_t>(dv.size()));
  DeviceArray<float> work(static_cast<std::size_t>(s.b * s.h_q * (s.s_kv * (s.d_qk + s.d_v) + s.s_q)));
  ref::cuda::sdpa_backward(d, seq_q.get(), seq_kv.get(), q.get(), k.get(), v.get(), o.get(), dout.get(),
                           stats.get(), bias_ptr, d_dq.get(), d_dk.get(), d_dv.get(), work.get());
  from_device(d_dq, dq);
  from_device(d_dk, dk);
  from_device(d_dv, dv);
}

}  // namespace

std::string gpu_reference_unavailable_reason() {
  int count = 0;
  if (const cudaError_t s = cudaGetDeviceCount(&count); s != cudaSuccess)
    return std::string("no CUDA device: ") + cudaGetErrorString(s);
  if (count == 0) return "no CUDA device";
  return "";
}

bool gpu_reference_node(const Graph& graph, const Node& node, Values& values) {
  if (!is_gpu_reference_kind(node.kind) || reads_or_writes_fp64(graph, node)) return false;
  if (node.kind == OpKind::matmul)
    matmul(graph, node, values);
  else if (node.kind == OpKind::sdpa_fwd || node.kind == OpKind::sdpa_bwd)
    sdpa(graph, node, values);
  else
    conv(graph, node, values);
  return true;
}

}  // namespace dnnbench
