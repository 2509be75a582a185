// Every op family the graph format has, as the ATen eager calls a PyTorch user would write:
// convolutions through at::convolution / at::convolution_backward, matmul through at::matmul
// (batched, broadcast), pointwise ops through their ATen functions, norms through
// at::batch_norm / at::native_layer_norm (and at::rms_norm where the version has it), pooling
// through at::max_poolNd / at::avg_poolNd, reductions through at::sum / at::amax / ...
// One translation unit for all families on purpose: LibTorch's headers cost seconds per file.
#include "providers/torch/aten_graph.hpp"

#include <ATen/ExpandUtils.h>
#include <ATen/TensorOperators.h>
#include <ATen/ops/abs.h>
#include <ATen/ops/amax.h>
#include <ATen/ops/amin.h>
#include <ATen/ops/avg_pool1d.h>
#include <ATen/ops/avg_pool2d.h>
#include <ATen/ops/avg_pool3d.h>
#include <ATen/ops/batch_norm.h>
#include <ATen/ops/clamp.h>
#include <ATen/ops/constant_pad_nd.h>
#include <ATen/ops/convolution.h>
#include <ATen/ops/convolution_backward.h>
#include <ATen/ops/elu.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <ATen/ops/exp.h>
#include <ATen/ops/flip.h>
#include <ATen/ops/from_blob.h>
#include <ATen/ops/gelu.h>
#include <ATen/ops/leaky_relu.h>
#include <ATen/ops/log.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/max_pool1d.h>
#include <ATen/ops/max_pool2d.h>
#include <ATen/ops/max_pool3d.h>
#include <ATen/ops/maximum.h>
#include <ATen/ops/mean.h>
#include <ATen/ops/minimum.h>
#include <ATen/ops/native_batch_norm.h>
#include <ATen/ops/native_batch_norm_backward.h>
#include <ATen/ops/native_layer_norm.h>
#include <ATen/ops/ones_like.h>
#include <ATen/ops/pow.h>
#include <ATen/ops/prod.h>
#include <ATen/ops/reciprocal.h>
#include <ATen/ops/relu.h>
#include <ATen/ops/rsqrt.h>
#include <ATen/ops/sigmoid.h>
#include <ATen/ops/silu.h>
#include <ATen/ops/softplus.h>
#include <ATen/ops/sqrt.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/tanh.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <torch/version.h>
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 5)
#include <ATen/ops/arange.h>
#include <ATen/ops/full.h>
#include <ATen/ops/scaled_dot_product_attention.h>
#include <ATen/ops/zeros_like.h>
#endif
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#include <ATen/ops/rms_norm.h>
#define DNNBENCH_TORCH_HAS_RMS_NORM 1  // at::rms_norm: PyTorch 2.4 and later
#endif

#include <algorithm>
#include <limits>
#include <optional>

#include "graph/ops/norm_axes.hpp"
#include "providers/provider.hpp"

namespace dnnbench::torch_provider {

namespace {

using dims_t = std::vector<std::int64_t>;

// ATen's optional arguments: c10::optional in 1.x, std::optional (c10's name kept as an alias)
// in 2.x, where the alias may be deprecated.
#if TORCH_VERSION_MAJOR >= 2
template <class T>
using Opt = std::optional<T>;
constexpr auto kNone = std::nullopt;
#else
template <class T>
using Opt = c10::optional<T>;
constexpr auto kNone = c10::nullopt;
#endif

dims_t spatial(const dims_t& given, std::size_t n, std::int64_t fallback) {
  return given.empty() ? dims_t(n, fallback) : given;
}

bool same_sizes(const at::Tensor& t, const dims_t& dims) {
  return t.sizes().vec() == dims;
}

std::string sizes_text(at::IntArrayRef sizes) {
  std::string s = "[";
  for (std::size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "]";
}

// ATen's constant_pad_nd takes (before, after) pairs from the last dim backwards.
dims_t pad_pairs(const dims_t& pre, const dims_t& post) {
  dims_t pads;
  for (std::size_t i = pre.size(); i-- > 0;) {
    pads.push_back(pre[i]);
    pads.push_back(post[i]);
  }
  return pads;
}

dims_t spatial_dims_of(std::size_t rank) {
  dims_t d;
  for (std::size_t i = 2; i < rank; ++i) d.push_back(static_cast<std::int64_t>(i));
  return d;
}

}  // namespace

at::ScalarType scalar_type(DataType dtype) {
  switch (dtype) {
    case DataType::f32:
      return at::kFloat;
    case DataType::f16:
      return at::kHalf;
    case DataType::bf16:
      return at::kBFloat16;
    case DataType::f64:
      return at::kDouble;
    case DataType::i8:
      return at::kChar;
    case DataType::u8:
      return at::kByte;
    case DataType::i32:
      return at::kInt;
    case DataType::i64:
      return at::kLong;
    case DataType::boolean:
      return at::kBool;
    default:
      throw Unsupported("ATen tensors of type " + std::string(dtype_name(dtype)) +
                        " are not expressed by this provider");
  }
}

AtenGraph::AtenGraph(const Graph& graph, at::Device device) : graph_(graph), device_(device) {
  for (const auto& t : graph.tensors)
    if (!t.is_virtual && !t.is_by_value()) scalar_type(t.dtype);  // refuse unexpressible types early
}

void AtenGraph::bind(const std::unordered_map<std::int64_t, void*>& buffers) {
  masks_.clear();
  bound_.clear();
  scalars_.clear();
  for (const auto& t : graph_.tensors) {
    if (t.is_virtual) continue;
    const auto it = buffers.find(t.uid);
    if (it == buffers.end()) continue;
    if (t.is_by_value()) {
      scalars_[t.uid] = *static_cast<const double*>(it->second);
      continue;
    }
    bound_[t.uid] = at::from_blob(it->second, t.dims, t.strides,
                                  at::TensorOptions().dtype(scalar_type(t.dtype)).device(device_));
  }
}

void AtenGraph::bind_scratch() {
  masks_.clear();
  bound_.clear();
  scalars_.clear();
  for (const auto& t : graph_.tensors) {
    if (t.is_virtual) continue;
    if (t.is_by_value()) {
      scalars_[t.uid] = *t.scalar_value;
      continue;
    }
    bound_[t.uid] =
        at::empty_strided(t.dims, t.strides, at::TensorOptions().dtype(scalar_type(t.dtype)).device(device_));
    bound_[t.uid].zero_();
  }
}

void AtenGraph::run() {
  values_.clear();
  for (const auto& node : graph_.nodes) run_node(node);
}

void AtenGraph::note(const std::string& text) {
  if (std::find(notes_.begin(), notes_.end(), text) == notes_.end()) notes_.push_back(text);
}

const at::Tensor& AtenGraph::in(const Node& node, std::string_view role) const {
  const at::Tensor* t = optional_in(node, role);
  if (!t) throw Unsupported("node '" + node.name + "' has no input '" + std::string(role) + "'");
  return *t;
}

const at::Tensor* AtenGraph::optional_in(const Node& node, std::string_view role) const {
  const auto uid = node.input(role);
  if (!uid) return nullptr;
  if (auto v = values_.find(*uid); v != values_.end()) return &v->second;
  if (auto b = bound_.find(*uid); b != bound_.end()) return &b->second;
  throw Unsupported("node '" + node.name + "': input '" + std::string(role) + "' is not bound");
}

double AtenGraph::scalar(const Node& node, std::string_view role) const {
  const auto uid = node.input(role);
  if (!uid) throw Unsupported("node '" + node.name + "' has no scalar '" + std::string(role) + "'");
  if (auto s = scalars_.find(*uid); s != scalars_.end()) return s->second;
  const TensorDesc& t = graph_.tensor(*uid);
  if (t.scalar_value) return *t.scalar_value;
  throw Unsupported("'" + std::string(role) + "' of node '" + node.name +
                    "' is a tensor, not a by-value scalar; ATen takes it as a number");
}

void AtenGraph::put(const Node& node, std::string_view role, const at::Tensor& result) {
  const auto uid = node.output(role);
  if (!uid) return;
  const TensorDesc& t = graph_.tensor(*uid);
  at::Tensor shaped = result;
  if (!same_sizes(result, t.dims)) {
    if (result.numel() != t.element_count())
      throw Unsupported("ATen's result for '" + t.name + "' has dims " + sizes_text(result.sizes()) +
                        ", the graph's are " + sizes_text(t.dims));
    shaped = result.reshape(t.dims);
  }
  if (t.is_virtual) {
    values_[*uid] = shaped.to(scalar_type(t.dtype));
    return;
  }
  bound_.at(*uid).copy_(shaped);
  note("graph outputs: ATen's result tensors copied into the bound buffers (inside the timed region)");
}

at::Tensor* AtenGraph::direct_output(const Node& node, std::string_view role, at::ScalarType dtype) {
  const auto uid = node.output(role);
  if (!uid || graph_.tensor(*uid).is_virtual) return nullptr;
  auto it = bound_.find(*uid);
  return it != bound_.end() && it->second.scalar_type() == dtype ? &it->second : nullptr;
}

void AtenGraph::run_node(const Node& node) {
  // ATen computes in the data's type (fp32 and lower accumulate in fp32): a graph asking for
  // fp64 arithmetic on lower-precision data asks for something ATen would not do.
  if (node.compute_type == DataType::f64)
    for (const auto& port : node.inputs) {
      const TensorDesc& t = graph_.tensor(port.uid);
      if (!t.is_by_value() && t.dtype != DataType::f64)
        throw Unsupported("node '" + node.name + "' asks for double arithmetic on " +
                          std::string(dtype_name(t.dtype)) + " data; ATen computes in the data's type");
    }
  switch (node.kind) {
    case OpKind::conv_fwd:
    case OpKind::conv_bwd_data:
    case OpKind::conv_bwd_weights:
      return conv(node);
    case OpKind::matmul:
      return matmul(node);
    case OpKind::pointwise:
      return pointwise(node);
    case OpKind::batchnorm_inference:
      return batchnorm(node);
    case OpKind::batchnorm_training:
      return batchnorm_training(node);
    case OpKind::batchnorm_backward:
      return batchnorm_backward(node);
    case OpKind::layernorm:
      return layernorm(node);
    case OpKind::rmsnorm:
      return rmsnorm(node);
    case OpKind::reduction:
      return reduction(node);
    case OpKind::resample:
      return resample(node);
    case OpKind::sdpa_fwd:
      return sdpa(node);
    default:
      throw Unsupported("the torch provider has no ATen lowering of " + node.type);
  }
}

// ---- convolutions ----
// at::convolution pads symmetrically; an asymmetric padding pads x explicitly
// (at::constant_pad_nd) and convolves unpadded, as a PyTorch user writes F.pad + conv. CONVOLUTION
// mode (a true convolution) is cross-correlation with the filter reversed: at::flip.
void AtenGraph::conv(const Node& node) {
  const auto& p = node.as<ConvParams>();
  const bool fwd = node.kind == OpKind::conv_fwd, bwd_data = node.kind == OpKind::conv_bwd_data;
  const TensorDesc& x_desc = graph_.tensor(fwd        ? *node.input("x")
                                           : bwd_data ? *node.output("dx")
                                                      : *node.input("x"));
  const std::size_t n = x_desc.dims.size() - 2;
  const dims_t pre = spatial(p.pre_padding, n, 0), post = spatial(p.post_padding, n, 0);
  const dims_t stride = spatial(p.stride, n, 1), dilation = spatial(p.dilation, n, 1);
  const bool symmetric = pre == post;
  const dims_t padding = symmetric ? pre : dims_t(n, 0), output_padding(n, 0);
  const dims_t flip_dims = spatial_dims_of(n + 2);
  if (!symmetric)
    note("asymmetric padding: x padded explicitly (at::constant_pad_nd), then convolved unpadded");
  if (!p.cross_correlation) note("CONVOLUTION mode: the filter reversed with at::flip each execution");

  if (fwd) {
    at::Tensor x = in(node, "x"), w = in(node, "w");
    if (!symmetric) x = at::constant_pad_nd(x, pad_pairs(pre, post));
    if (!p.cross_correlation) w = at::flip(w, flip_dims);
    put(node, "y", at::convolution(x, w, kNone, stride, padding, dilation, false, output_padding, p.groups));
    return;
  }
  const at::Tensor& dy = in(node, "dy");
  if (bwd_data) {
    at::Tensor w = in(node, "w");
    if (!p.cross_correlation) w = at::flip(w, flip_dims);
    // convolution_backward reads only the sizes and layout of `input` for the data gradient.
    dims_t padded = x_desc.dims;
    for (std::size_t i = 0; i < n; ++i) padded[2 + i] += pre[i] + post[i];
    const at::Tensor input_like =
        symmetric ? bound_.at(x_desc.uid) : at::empty(padded, dy.options().dtype(w.scalar_type()));
    auto grads = at::convolution_backward(dy, input_like, w, kNone, stride, padding, dilation, false,
                                          output_padding, p.groups, {true, false, false});
    at::Tensor dx = std::get<0>(grads);
    if (!symmetric) {
      dims_t crop;
      for (auto v : pad_pairs(pre, post)) crop.push_back(-v);
      dx = at::constant_pad_nd(dx, crop);
    }
    put(node, "dx", dx);
    return;
  }
  at::Tensor x = in(node, "x");
  if (!symmetric) x = at::constant_pad_nd(x, pad_pairs(pre, post));
  // The weight gradient reads only the sizes and layout of `weight`: the bound dw buffer serves.
  const at::Tensor& weight_like = bound_.at(*node.output("dw"));
  auto grads = at::convolution_backward(dy, x, weight_like, kNone, stride, padding, dilation, false,
                                        output_padding, p.groups, {false, true, false});
  at::Tensor dw = std::get<1>(grads);
  if (!p.cross_correlation) dw = at::flip(dw, flip_dims);
  put(node, "dw", dw);
}

// ---- matmul: batched, batch dims broadcast numpy-style ----
void AtenGraph::matmul(const Node& node) {
  const at::Tensor& a = in(node, "a");
  const at::Tensor& b = in(node, "b");
  // Straight into the bound output where it is what ATen would return (dims and dtype), as
  // torch.matmul(a, b, out=c) would: the GEMM without a copy kernel after it, which a caller of
  // torch.matmul does not pay either.
  if (at::Tensor* out = direct_output(node, "c", a.scalar_type()); out && a.dim() >= 2 && b.dim() >= 2) {
    std::vector<std::int64_t> batch_a(a.sizes().begin(), a.sizes().end() - 2);
    std::vector<std::int64_t> batch_b(b.sizes().begin(), b.sizes().end() - 2);
    std::vector<std::int64_t> sizes = at::infer_size(batch_a, batch_b);
    sizes.insert(sizes.end(), {a.size(-2), b.size(-1)});
    if (out->sizes() == at::IntArrayRef(sizes) && b.scalar_type() == a.scalar_type()) {
      at::matmul_out(*out, a, b);
      note("matmul: written into the bound output by at::matmul_out");
      return;
    }
  }
  put(node, "c", at::matmul(a, b));
}

// ---- pointwise ----
void AtenGraph::pointwise(const Node& node) {
  const auto& p = node.as<PointwiseParams>();
  const at::Tensor& a = in(node, "in_0");
  at::Tensor r;
  if (p.arity() == 2) {
    const at::Tensor& b = in(node, "in_1");
    switch (p.op) {
      case PointwiseOp::add:
        r = a + b;
        break;
      case PointwiseOp::sub:
        r = a - b;
        break;
      case PointwiseOp::mul:
        r = a * b;
        break;
      case PointwiseOp::div:
        r = a / b;
        break;
      case PointwiseOp::max:
        r = at::maximum(a, b);
        break;
      case PointwiseOp::min:
        r = at::minimum(a, b);
        break;
      case PointwiseOp::pow:
        r = at::pow(a, b);
        break;
      default:
        throw Unsupported("pointwise " + std::string(pointwise_op_name(p.op)) + " with two inputs");
    }
    put(node, "out_0", r);
    return;
  }
  switch (p.op) {
    case PointwiseOp::relu: {
      const double lower = p.relu_lower_clip.value_or(0.0), slope = p.relu_lower_clip_slope.value_or(0.0);
      if (!p.relu_upper_clip && lower == 0 && slope == 0) {
        r = at::relu(a);
      } else if (slope == 0) {
        r = at::clamp(a, lower, p.relu_upper_clip ? Opt<at::Scalar>(*p.relu_upper_clip) : kNone);
      } else if (!p.relu_upper_clip && lower == 0) {
        r = at::leaky_relu(a, slope);
      } else {
        // lower + slope * (x - lower) at or below the lower clip, x (clipped above) elsewhere.
        at::Tensor upper = p.relu_upper_clip ? at::clamp(a, kNone, *p.relu_upper_clip) : a;
        r = at::where(a <= lower, (a - lower) * slope + lower, upper);
      }
      break;
    }
    case PointwiseOp::gelu:
      r = at::gelu(a, "none");
      break;
    case PointwiseOp::gelu_tanh:
      r = at::gelu(a, "tanh");
      break;
    case PointwiseOp::sigmoid:
      r = at::sigmoid(a);
      break;
    case PointwiseOp::tanh:
      r = at::tanh(a);
      break;
    case PointwiseOp::swish: {
      const double beta = p.swish_beta.value_or(1.0);
      r = beta == 1.0 ? at::silu(a) : a * at::sigmoid(a * beta);
      break;
    }
    case PointwiseOp::elu:
      r = at::elu(a, p.elu_alpha.value_or(1.0));
      break;
    case PointwiseOp::softplus:
      // ATen's threshold (x * beta > 20 returns x) is off from log1p(exp(z)) / beta by < 3e-9.
      r = at::softplus(a, p.softplus_beta.value_or(1.0), 20);
      break;
    case PointwiseOp::exp:
      r = at::exp(a);
      break;
    case PointwiseOp::log:
      r = at::log(a);
      break;
    case PointwiseOp::sqrt:
      r = at::sqrt(a);
      break;
    case PointwiseOp::rsqrt:
      r = at::rsqrt(a);
      break;
    case PointwiseOp::abs:
      r = at::abs(a);
      break;
    case PointwiseOp::neg:
      r = -a;
      break;
    case PointwiseOp::recip:
      r = at::reciprocal(a);
      break;
    case PointwiseOp::identity:
      r = a;
      break;
    default:
      throw Unsupported("pointwise " + std::string(pointwise_op_name(p.op)) + " has no ATen lowering here");
  }
  put(node, "out_0", r);
}

// ---- normalizations ----
// Batchnorm inference: at::batch_norm with the running statistics. A graph with inv_variance
// passes variance = 1 / inv_variance^2 and epsilon 0 (computed per execution: C elements).
// A per-channel operand ([1, C, 1, ...] in the graph) as ATen's [C].
at::Tensor AtenGraph::per_channel(const Node& node, std::string_view role, std::int64_t channels) const {
  const at::Tensor& t = in(node, role);
  if (t.numel() != channels)
    throw Unsupported("'" + std::string(role) + "' of node '" + node.name + "' is not one value per channel");
  return t.reshape({channels});
}

void AtenGraph::batchnorm(const Node& node) {
  const auto& p = node.as<BatchnormParams>();
  const at::Tensor& x = in(node, "x");
  const std::int64_t channels = x.size(1);
  const auto per_channel = [&](std::string_view role) { return this->per_channel(node, role, channels); };
  at::Tensor variance;
  double epsilon = 0;
  if (p.variance_ext) {
    variance = per_channel("variance");
    epsilon = scalar(node, "epsilon");
  } else {
    variance = at::reciprocal(per_channel("inv_variance").pow(2));
    note("inv_variance passed to at::batch_norm as variance = 1 / inv_variance^2 with epsilon 0");
  }
  put(node, "y",
      at::batch_norm(x, per_channel("scale"), per_channel("bias"), per_channel("mean"), variance, false, 0.0,
                     epsilon, true));
}

// Batch norm training: at::native_batch_norm (what F.batch_norm(training=True) runs, and the
// call that also returns the saved mean and inverse standard deviation). ATen updates running
// averages in place, so they start as a copy of the graph's previous ones and become its next.
void AtenGraph::batchnorm_training(const Node& node) {
  const at::Tensor& x = in(node, "x");
  const std::int64_t channels = x.size(1);
  const double epsilon = scalar(node, "epsilon");
  // The running average ATen updates: next_running_* itself (as a [C] view, after one copy of
  // prev_running_* into it) where it is a bound output of prev's dtype, else a copy put after.
  const auto running = [&](std::string_view prev_role, std::string_view next_role) {
    const at::Tensor prev = per_channel(node, prev_role, channels);
    if (at::Tensor* next = direct_output(node, next_role, prev.scalar_type());
        next && next->numel() == channels) {
      at::Tensor view = next->as_strided({channels}, {next->stride(1)});
      view.copy_(prev);
      return std::make_pair(view, true);
    }
    return std::make_pair(prev.clone(), false);
  };
  std::pair<at::Tensor, bool> running_mean, running_var;
  double momentum = 0;
  if (optional_in(node, "prev_running_mean")) {
    momentum = scalar(node, "momentum");
    running_mean = running("prev_running_mean", "next_running_mean");
    running_var = running("prev_running_variance", "next_running_variance");
    note("batch norm: prev_running_* copied into next_running_*, which ATen updates in place");
  }
  // c10::optional: its own type in LibTorch 1.13, std::optional in 2.x.
  using OptionalTensor = c10::optional<at::Tensor>;
  const auto optional = [](const at::Tensor& t) {
    return t.defined() ? OptionalTensor(t) : OptionalTensor();
  };
  auto [y, mean, inv_std] = at::native_batch_norm(
      x, per_channel(node, "scale", channels), per_channel(node, "bias", channels),
      optional(running_mean.first), optional(running_var.first), true, momentum, epsilon);
  put(node, "y", y);
  put(node, "mean", mean);
  put(node, "inv_variance", inv_std);
  if (running_mean.first.defined() && !running_mean.second)
    put(node, "next_running_mean", running_mean.first);
  if (running_var.first.defined() && !running_var.second)
    put(node, "next_running_variance", running_var.first);
}

// Batch norm backward from the saved statistics: at::native_batch_norm_backward (train mode, so
// mean and inv_variance are the saved ones and epsilon is not used).
void AtenGraph::batchnorm_backward(const Node& node) {
  const at::Tensor& x = in(node, "x");
  const std::int64_t channels = x.size(1);
  auto [dx, dscale, dbias] = at::native_batch_norm_backward(
      in(node, "dy"), x, per_channel(node, "scale", channels), c10::optional<at::Tensor>(),
      c10::optional<at::Tensor>(), per_channel(node, "mean", channels),
      per_channel(node, "inv_variance", channels), true, 0.0,
      {true, node.output("dscale").has_value(), node.output("dbias").has_value()});
  put(node, "dx", dx);
  if (dscale.defined()) put(node, "dscale", dscale);
  if (dbias.defined()) put(node, "dbias", dbias);
}

// The normalized dims' weight (scale or bias) as the normalized shape; Unsupported when it also
// varies over the other dims (ATen's layer norm takes one weight per normalized element).
at::Tensor normalized_weight(const at::Tensor& t, const dims_t& normalized, const std::string& what) {
  std::int64_t count = 1;
  for (auto d : normalized) count *= d;
  if (t.numel() != count)
    throw Unsupported(what + " has " + std::to_string(t.numel()) +
                      " elements; ATen's layer norm takes one per "
                      "normalized element (" +
                      std::to_string(count) + ")");
  return t.reshape(normalized);
}

// Layernorm: at::native_layer_norm returns y, mean and rstd (= inv_variance) in one call.
void AtenGraph::layernorm(const Node& node) {
  const at::Tensor& x = in(node, "x");
  const auto axes = layernorm_normalized_axes(graph_, node);
  dims_t normalized;
  for (int a : axes) normalized.push_back(x.size(a));
  const at::Tensor scale = normalized_weight(in(node, "scale"), normalized, "scale");
  const at::Tensor* bias = optional_in(node, "bias");
  const Opt<at::Tensor> bias_w = bias ? Opt<at::Tensor>(normalized_weight(*bias, normalized, "bias")) : kNone;
  auto [y, mean, rstd] = at::native_layer_norm(x, normalized, scale, bias_w, scalar(node, "epsilon"));
  put(node, "y", y);
  put(node, "mean", mean);
  put(node, "inv_variance", rstd);
}

// RMSNorm: at::rms_norm (PyTorch 2.4+) when only y is wanted over trailing dims; else the
// composite a PyTorch user writes (x * rsqrt(mean(x^2) + eps) * scale), which also gives inv_rms.
void AtenGraph::rmsnorm(const Node& node) {
  const at::Tensor& x = in(node, "x");
  const auto axes = rmsnorm_normalized_axes(graph_, node);
  const at::Tensor& scale = in(node, "scale");
  const at::Tensor* bias = optional_in(node, "bias");
  const double epsilon = scalar(node, "epsilon");
  const auto inv_rms_uid = node.output("inv_rms");
  [[maybe_unused]] const bool wants_inv_rms = inv_rms_uid && !graph_.tensor(*inv_rms_uid).is_virtual;
#ifdef DNNBENCH_TORCH_HAS_RMS_NORM
  bool trailing = !axes.empty();
  for (std::size_t i = 0; i < axes.size(); ++i)
    trailing = trailing && axes[i] == static_cast<int>(x.dim() - static_cast<std::int64_t>(axes.size() - i));
  dims_t normalized;
  std::int64_t normalized_count = 1;
  for (int a : axes) {
    normalized.push_back(x.size(a));
    normalized_count *= x.size(a);
  }
  // at::rms_norm takes one weight per normalized element; a per-channel scale is the ops below.
  if (!wants_inv_rms && trailing && scale.numel() == normalized_count) {
    at::Tensor y = at::rms_norm(x, normalized, normalized_weight(scale, normalized, "scale"), epsilon);
    put(node, "y", bias ? y + *bias : y);
    return;
  }
#endif
  dims_t dims(axes.begin(), axes.end());
  const at::Tensor inv_rms = at::rsqrt(at::mean(x * x, dims, true) + epsilon);
  at::Tensor y = x * inv_rms * scale;
  if (bias) y = y + *bias;
  note("RMSNorm as ATen ops: x * rsqrt(mean(x^2) + epsilon) * scale (+ bias)");
  put(node, "y", y);
  put(node, "inv_rms", inv_rms);
}

// ---- reductions: out has 1 on every reduced dim (missing leading dims reduced) ----
void AtenGraph::reduction(const Node& node) {
  const auto& p = node.as<ReductionParams>();
  const at::Tensor& x = in(node, "in");
  const TensorDesc& out = graph_.tensor(*node.output("out"));
  const auto rank = static_cast<std::size_t>(x.dim()), lead = rank - out.dims.size();
  dims_t dims;
  for (std::size_t i = 0; i < rank; ++i)
    if (i < lead || (out.dims[i - lead] == 1 && x.size(static_cast<std::int64_t>(i)) != 1))
      dims.push_back(static_cast<std::int64_t>(i));
  const auto product = [&](at::Tensor t) {  // at::prod takes one dim at a time
    for (auto d : dims) t = at::prod(t, d, true);
    return t;
  };
  at::Tensor r;
  switch (p.mode) {
    case ReductionMode::add:
      r = at::sum(x, dims, true);
      break;
    case ReductionMode::avg:
      r = at::mean(x, dims, true);
      break;
    case ReductionMode::mul:
      r = product(x);
      break;
    case ReductionMode::mul_no_zeros:
      r = product(at::where(x == 0, at::ones_like(x), x));
      break;
    case ReductionMode::min:
      r = at::amin(x, dims, true);
      break;
    case ReductionMode::max:
      r = at::amax(x, dims, true);
      break;
    case ReductionMode::amax:
      r = at::amax(at::abs(x), dims, true);
      break;
    case ReductionMode::norm1:
      r = at::sum(at::abs(x), dims, true);
      break;
    case ReductionMode::norm2:
      r = at::sqrt(at::sum(x * x, dims, true));
      break;
  }
  put(node, "out", r);
}

// ---- pooling ----
// ATen pools pad symmetrically (at most half the window); other paddings are explicit pads
// (-inf for max, zeros for average including padding). Average excluding an asymmetric padding
// has no ATen call.
void AtenGraph::resample(const Node& node) {
  const auto& p = node.as<ResampleParams>();
  at::Tensor x = in(node, "x");
  const std::size_t n = static_cast<std::size_t>(x.dim()) - 2;
  if (n < 1 || n > 3) throw Unsupported("ATen pools 1 to 3 spatial dims");
  const dims_t window = p.window, stride = spatial(p.stride, n, 1);
  const dims_t pre = spatial(p.pre_padding, n, 0), post = spatial(p.post_padding, n, 0);
  bool native = pre == post;
  for (std::size_t i = 0; i < n; ++i) native = native && pre[i] * 2 <= window[i];
  dims_t padding = native ? pre : dims_t(n, 0);
  const bool max = p.mode == ResampleMode::maxpool;
  const bool include_pad = p.mode == ResampleMode::avgpool_include_padding;
  if (!native) {
    if (!max && !include_pad)
      throw Unsupported(
          "average pooling excluding an asymmetric padding (or one over half the window) has "
          "no ATen call");
    const double fill = max ? -std::numeric_limits<double>::infinity() : 0.0;
    x = at::constant_pad_nd(x, pad_pairs(pre, post), fill);
    note("padding applied explicitly (at::constant_pad_nd): ATen pools pad symmetrically");
  }
  const dims_t dilation(n, 1);
  at::Tensor y;
  if (max) {
    y = n == 1   ? at::max_pool1d(x, window, stride, padding, dilation, false)
        : n == 2 ? at::max_pool2d(x, window, stride, padding, dilation, false)
                 : at::max_pool3d(x, window, stride, padding, dilation, false);
  } else {
    y = n == 1   ? at::avg_pool1d(x, window, stride, padding, false, include_pad)
        : n == 2 ? at::avg_pool2d(x, window, stride, padding, false, include_pad)
                 : at::avg_pool3d(x, window, stride, padding, false, include_pad);
  }
  put(node, "y", y);
}

// ---- attention: at::scaled_dot_product_attention (torch 2.5+: scale and enable_gqa) ----
// The masks a PyTorch user would pass: none, or is_causal for a top-left causal mask alone, or a
// boolean keep-mask [B|1, 1, Sq, Skv] built with tensor ops from sdpa_mask.hpp's rule (padding
// from the seq_len tensors, bottom-right shift, left/right bounds) and combined with the graph's
// attn_mask. The mask is built once per binding (as a user builds it before the loop), at the
// first run after bind(), which is never a timed one. Rows with no kept key are zeroed, as the
// reference defines them (ATen's softmax over nothing is NaN).
void AtenGraph::sdpa(const Node& node) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 5)
  const auto& p = node.as<SdpaParams>();
  if (node.output("stats"))
    throw Unsupported("at::scaled_dot_product_attention returns no softmax statistics (the graph's 'stats')");
  const at::Tensor& q = in(node, "q");
  const at::Tensor& k = in(node, "k");
  const at::Tensor& v = in(node, "v");
  const double scale = p.scale_value ? *p.scale_value : node.input("scale") ? scalar(node, "scale") : 1.0;
  const at::Tensor* attn_mask = optional_in(node, "attn_mask");
  const std::int64_t sq = q.size(2), skv = k.size(2);
  const bool shifted = p.alignment == DiagonalAlignment::bottom_right && sq != skv;
  const bool causal_only =
      p.right_bound && *p.right_bound == 0 && !p.left_bound && !shifted && !p.padding_mask;
  // is_causal takes no attn_mask in ATen: with one, the causal bound joins the built mask.
  const bool is_causal = causal_only && !attn_mask;
  const bool built = p.padding_mask || p.left_bound || (p.right_bound && !is_causal);
  std::optional<at::Tensor> mask;
  if (attn_mask) mask = *attn_mask;
  at::Tensor* rows_kept = nullptr;
  if (built) {
    auto cached = masks_.find(&node);
    if (cached == masks_.end()) {
      const auto opts = at::TensorOptions().dtype(at::kLong).device(device_);
      const at::Tensor i = at::arange(sq, opts).view({1, 1, sq, 1});
      const at::Tensor j = at::arange(skv, opts).view({1, 1, 1, skv});
      at::Tensor len_q = at::full({1, 1, 1, 1}, sq, opts), len_kv = at::full({1, 1, 1, 1}, skv, opts);
      if (p.padding_mask) {
        len_q = in(node, "seq_len_q").reshape({-1, 1, 1, 1}).to(at::kLong);
        len_kv = in(node, "seq_len_kv").reshape({-1, 1, 1, 1}).to(at::kLong);
      }
      const at::Tensor shift =
          p.alignment == DiagonalAlignment::bottom_right ? len_kv - len_q : at::zeros_like(len_q);
      at::Tensor keep = (i < len_q).logical_and(j < len_kv);
      if (p.right_bound) keep = keep.logical_and(j <= i + shift + *p.right_bound);
      if (p.left_bound) keep = keep.logical_and(j > i + shift - *p.left_bound);
      if (attn_mask && attn_mask->scalar_type() == at::kBool) keep = keep.logical_and(*attn_mask);
      at::Tensor full_mask = keep;
      if (attn_mask && attn_mask->scalar_type() != at::kBool)
        full_mask = at::where(keep, *attn_mask, -std::numeric_limits<double>::infinity()).to(q.scalar_type());
      cached = masks_.emplace(&node, SdpaMask{full_mask, keep.any(-1, true)}).first;
      note("attention: the masks as one boolean keep-mask (tensor ops, built once per binding)");
    }
    mask = cached->second.mask;
    rows_kept = &cached->second.rows_kept;
  }
  const bool gqa = k.size(1) != q.size(1) || v.size(1) != q.size(1);
  at::Tensor o = at::scaled_dot_product_attention(q, k, v, mask, 0.0, is_causal, scale, gqa);
  if (rows_kept) o = o.masked_fill(rows_kept->logical_not(), 0);
  put(node, "o", o);
#else
  (void)node;
  throw Unsupported(std::string("torch ") + TORCH_VERSION +
                    " has no at::scaled_dot_product_attention with scale and enable_gqa (torch 2.5+)");
#endif
}

}  // namespace dnnbench::torch_provider
