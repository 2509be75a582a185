#include "providers/cudnn/lowering.hpp"

#include <algorithm>

#include "providers/provider.hpp"

namespace dnnbench::cudnn {

namespace {

// cuDNN's matmul needs batched 3-D operands ([B, M, K]); every tensor of a graph gets the same
// rank so that broadcasting operands line up dim by dim.
constexpr std::size_t kMinRank = 3;
// The frontend's default; true of cudaMalloc'd buffers (256-byte aligned).
constexpr std::int64_t kByteAlignment = 16;

std::int64_t product(const std::vector<std::int64_t>& dims) {
  std::int64_t n = 1;
  for (const std::int64_t d : dims) n *= d;
  return n;
}

std::optional<std::int64_t> find_port(const std::vector<Port>& ports, std::string_view role) {
  for (const auto& p : ports)
    if (p.role == role) return p.uid;
  return std::nullopt;
}

}  // namespace

std::string hints_text(const std::vector<std::string>& hints) {
  std::string text;
  for (const auto& h : hints) text += "; " + h;
  return text;
}

std::optional<std::string> broadcast_hint(const Graph& graph, std::int64_t operand, std::int64_t out) {
  const TensorDesc& b = graph.tensor(operand);
  const TensorDesc& y = graph.tensor(out);
  if (b.dims.size() > y.dims.size()) return std::nullopt;
  const std::size_t lead = y.dims.size() - b.dims.size();
  // The operand's own (non-1) dims must all be faster in y's memory than every dim it
  // broadcasts over: a per-channel vector of NHWC data, a row vector of row-major data.
  std::int64_t slowest_own = 0, fastest_broadcast = -1;
  for (std::size_t k = 0; k < y.dims.size(); ++k) {
    const std::int64_t d = k < lead ? 1 : b.dims[k - lead];
    if (y.dims[k] == 1) continue;
    if (d == 1) {
      if (fastest_broadcast < 0 || y.strides[k] < fastest_broadcast) fastest_broadcast = y.strides[k];
    } else {
      slowest_own = std::max(slowest_own, y.strides[k]);
    }
  }
  if (fastest_broadcast < 0 || slowest_own < fastest_broadcast) return std::nullopt;
  return "cuDNN's pointwise engines broadcast an operand only over dims slower in memory than its own "
         "(a per-channel vector needs channels-last data, e.g. NHWC); '" +
         b.name + "' varies along a dim slower than one it broadcasts over";
}

cudnnDataType_t data_type(DataType type) {
  switch (type) {
    case DataType::f32:
      return CUDNN_DATA_FLOAT;
    case DataType::f16:
      return CUDNN_DATA_HALF;
    case DataType::bf16:
      return CUDNN_DATA_BFLOAT16;
    case DataType::f64:
      return CUDNN_DATA_DOUBLE;
    case DataType::i8:
      return CUDNN_DATA_INT8;
    case DataType::u8:
      return CUDNN_DATA_UINT8;
    case DataType::i32:
      return CUDNN_DATA_INT32;
    case DataType::i64:
      return CUDNN_DATA_INT64;
    case DataType::boolean:
      return CUDNN_DATA_BOOLEAN;
    case DataType::fp8_e4m3:
      return CUDNN_DATA_FP8_E4M3;
    case DataType::fp8_e5m2:
      return CUDNN_DATA_FP8_E5M2;
    case DataType::unset:
      break;
  }
  throw Unsupported("a tensor or node has no data type");
}

std::int64_t input_uid(const Node& node, std::string_view role) {
  if (auto uid = find_port(node.inputs, role)) return *uid;
  throw Unsupported("node '" + node.name + "' has no input '" + std::string(role) + "'");
}

std::int64_t output_uid(const Node& node, std::string_view role) {
  if (auto uid = find_port(node.outputs, role)) return *uid;
  throw Unsupported("node '" + node.name + "' has no output '" + std::string(role) + "'");
}

Lowering::Lowering(const Graph& graph, std::shared_ptr<const Handle> handle)
    : graph_(graph), out_(std::make_shared<OpGraph>()), rank_(kMinRank) {
  out_->handle = std::move(handle);
  for (const auto& t : graph.tensors) {
    rank_ = std::max(rank_, t.dims.size());
    next_uid_ = std::max(next_uid_, t.uid + 1);
  }
  // cuDNN's fusion engines take elementwise graphs only on channels-last packed tensors
  // ("NSpatialC ordered fully packed"; a row-major [N, C, H, W] is refused with
  // NOT_SUPPORTED_LAYOUT). Which dim is called C means nothing to an elementwise op, so such
  // graphs relabel every tensor's dims the same way: the slowest dim first, the fastest second,
  // the rest in between — the same data, now NHWC-shaped — at rank 4 at least (rank-3 pointwise
  // graphs are refused; measured on the H200, cuDNN 9.14, 2026-12-01). Reductions take the same
  // view where they are not a row, column or whole reduction (reduction.cpp shows those in two
  // dims); relabelled, reduction_add passes on eng1.
  const bool elementwise = std::all_of(graph.nodes.begin(), graph.nodes.end(), [](const Node& n) {
    return n.kind == OpKind::pointwise || n.kind == OpKind::batchnorm_inference ||
           n.kind == OpKind::reduction;
  });
  elementwise_ = elementwise;
  if (elementwise) rank_ = std::max<std::size_t>(rank_, 4);
  // The order comes from the graph's largest tensor (a reduction's input, an elementwise
  // graph's output): its strides say which dim is fastest in memory.
  const auto outputs = graph.output_uids();
  std::optional<std::int64_t> widest;
  std::int64_t widest_count = 0;
  for (const std::int64_t uid : outputs) {
    const std::int64_t n = product(graph.tensor(uid).dims);
    if (!widest || n > widest_count) widest = uid, widest_count = n;
  }
  for (const auto& t : graph.tensors) {
    const std::int64_t n = product(t.dims);
    if (!t.is_virtual && !t.is_by_value() && widest && n > widest_count) widest = t.uid, widest_count = n;
  }
  if (elementwise && widest) {
    const Shape out = shape_of(*widest);
    std::vector<std::size_t> order(out.dims.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return out.strides[a] > out.strides[b]; });
    relabel_ = {order.front(), order.back()};
    relabel_.insert(relabel_.end(), order.begin() + 1, order.end() - 1);
  }
}

Shape Lowering::shape_of(std::int64_t uid) const {
  const auto& t = graph_.tensor(uid);
  Shape s{t.dims, t.strides};
  // Leading 1s; their stride is the extent the tensor already spans, which keeps a packed
  // tensor packed in cuDNN's eyes.
  while (s.dims.size() < rank_) {
    const std::int64_t span = s.dims.empty() ? 1 : s.dims.front() * s.strides.front();
    s.dims.insert(s.dims.begin(), 1);
    s.strides.insert(s.strides.begin(), std::max<std::int64_t>(span, 1));
  }
  if (relabel_.size() == s.dims.size()) {
    Shape r;
    for (std::size_t i : relabel_) {
      r.dims.push_back(s.dims[i]);
      r.strides.push_back(s.strides[i]);
    }
    return r;
  }
  return s;
}

namespace {

Descriptor make_tensor(std::int64_t uid, const Shape& shape, DataType dtype, bool is_virtual, bool by_value) {
  Descriptor d(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  set(d, CUDNN_ATTR_TENSOR_DATA_TYPE, data_type(dtype));
  set(d, CUDNN_ATTR_TENSOR_DIMENSIONS, shape.dims);
  set(d, CUDNN_ATTR_TENSOR_STRIDES, shape.strides);
  set(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, uid);
  set(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, kByteAlignment);
  set(d, CUDNN_ATTR_TENSOR_IS_VIRTUAL, is_virtual);
  if (by_value) set(d, CUDNN_ATTR_TENSOR_IS_BY_VALUE, true);
  d.finalize("tensor descriptor of uid " + std::to_string(uid));
  return d;
}

}  // namespace

const Descriptor& Lowering::tensor(std::int64_t uid, const std::optional<Shape>& shape,
                                   std::optional<DataType> dtype) {
  if (auto it = out_->tensors.find(uid); it != out_->tensors.end()) return it->second;
  const auto& t = graph_.tensor(uid);
  const DataType type = dtype.value_or(t.dtype);
  auto d = make_tensor(uid, shape ? *shape : shape_of(uid), type, t.is_virtual, t.is_by_value());
  if (!t.is_virtual) out_->bound.push_back({uid, type, t.is_by_value()});
  return out_->tensors.emplace(uid, std::move(d)).first->second;
}

const Descriptor& Lowering::virtual_tensor(const Shape& shape, DataType dtype) {
  const std::int64_t uid = next_uid_++;
  return out_->tensors.emplace(uid, make_tensor(uid, shape, dtype, true, false)).first->second;
}

const Descriptor& Lowering::constant(double value, DataType dtype, std::size_t rank) {
  const std::int64_t uid = next_uid_++;
  const Shape ones{std::vector<std::int64_t>(rank, 1), std::vector<std::int64_t>(rank, 1)};
  out_->constants.push_back({uid, dtype, value});
  return out_->tensors.emplace(uid, make_tensor(uid, ones, dtype, false, true)).first->second;
}

const Descriptor& Lowering::scratch_tensor(const Shape& shape, DataType dtype, std::vector<std::byte> init) {
  const std::int64_t uid = next_uid_++;
  std::int64_t elements = 1;
  for (auto d : shape.dims) elements *= d;
  out_->scratch.push_back({uid, static_cast<std::size_t>(elements) * dtype_size(dtype), std::move(init)});
  return out_->tensors.emplace(uid, make_tensor(uid, shape, dtype, false, false)).first->second;
}

const Descriptor& Lowering::keep(Descriptor d) {
  out_->settings.push_back(std::move(d));
  return out_->settings.back();
}

void Lowering::hint(std::string text) {
  if (std::find(out_->hints.begin(), out_->hints.end(), text) == out_->hints.end())
    out_->hints.push_back(std::move(text));
}

void Lowering::add_op(Descriptor op, std::string_view label) {
  out_->ops.push_back(std::move(op));
  out_->summary += (out_->summary.empty() ? "" : " -> ") + std::string(label);
}

DataType Lowering::compute_dtype(const Node& node) const {
  DataType t = node.compute_type;
  if (t == DataType::unset) t = graph_.compute_type;
  return t == DataType::unset ? DataType::f32 : t;
}

cudnnDataType_t Lowering::compute_type(const Node& node) const {
  return data_type(compute_dtype(node));
}

std::shared_ptr<OpGraph> Lowering::finish() {
  std::vector<const Descriptor*> ops;
  for (const auto& op : out_->ops) ops.push_back(&op);
  out_->graph = Descriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  // The handle attribute is deprecated since cuDNN 9 and not needed to finalize: a lowering without
  // one (no GPU: the capture importer's round-trip test) still gives cuDNN's own graph.
  if (out_->handle) set(out_->graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, out_->handle->get());
  set(out_->graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, ops);
  const cudnnStatus_t status = out_->graph.try_finalize();
  if (status != CUDNN_STATUS_SUCCESS)
    // Any refusal of the graph as a whole is cuDNN saying it cannot express it.
    throw Unsupported(status_message(status, "cuDNN refused the operation graph (" + out_->summary + ")") +
                      hints_text(out_->hints));
  std::sort(out_->bound.begin(), out_->bound.end(),
            [](const BoundTensor& a, const BoundTensor& b) { return a.uid < b.uid; });
  return out_;
}

namespace {

void lower_node(Lowering& low, const Node& node) {
  switch (node.kind) {
    case OpKind::conv_fwd:
    case OpKind::conv_bwd_data:
    case OpKind::conv_bwd_weights:
      return lower_conv(low, node);
    case OpKind::matmul:
      return lower_matmul(low, node);
    case OpKind::pointwise:
      return lower_pointwise(low, node);
    case OpKind::reduction:
      return lower_reduction(low, node);
    case OpKind::layernorm:
      return lower_layernorm(low, node);
    case OpKind::rmsnorm:
      return lower_rmsnorm(low, node);
    case OpKind::batchnorm_inference:
      return lower_batchnorm(low, node);
    case OpKind::batchnorm_training:
      return lower_batchnorm_training(low, node);
    case OpKind::batchnorm_backward:
      return lower_batchnorm_backward(low, node);
    case OpKind::resample:
      return lower_resample(low, node);
    case OpKind::sdpa_fwd:
      return lower_sdpa_fwd(low, node);
    case OpKind::sdpa_bwd:
      return lower_sdpa_bwd(low, node);
    case OpKind::unsupported:
      break;
  }
  throw Unsupported("unsupported op " + node.type);
}

}  // namespace

std::shared_ptr<OpGraph> lower_graph(const Graph& graph, std::shared_ptr<const Handle> handle) {
  if (auto types = graph.unsupported_types(); !types.empty())
    throw Unsupported("unsupported op " + types.front());
  Lowering low(graph, std::move(handle));
  for (const auto& node : graph.nodes) {
    try {
      lower_node(low, node);
    } catch (const Unsupported& e) {
      throw Unsupported(e.what() + hints_text(low.hints()));
    }
  }
  return low.finish();
}

}  // namespace dnnbench::cudnn
