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

std::optional<std::int64_t> find_port(const std::vector<Port>& ports, std::string_view role) {
  for (const auto& p : ports)
    if (p.role == role) return p.uid;
  return std::nullopt;
}

}  // namespace

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
  // graphs relabel every tensor's dims the same way: the output's slowest
  // dim first, its fastest dim second, the rest in between — the same data, now NHWC-shaped.
  // Reductions are left out: relabelled, the one engine that took reduction_add on the H200
  // (cuDNN 9.14, eng1) returned wrong sums; unrelabelled they are refused (!is_NHWC), which is
  // a skip with cuDNN's reason rather than a result nobody can trust yet.
  const bool elementwise = std::all_of(graph.nodes.begin(), graph.nodes.end(), [](const Node& n) {
    return n.kind == OpKind::pointwise || n.kind == OpKind::batchnorm_inference;
  });
  const auto outputs = graph.output_uids();
  if (elementwise && !outputs.empty()) {
    const Shape out = shape_of(outputs.front());
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
  set(out_->graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, out_->handle->get());
  set(out_->graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, ops);
  const cudnnStatus_t status = out_->graph.try_finalize();
  if (status != CUDNN_STATUS_SUCCESS)
    // Any refusal of the graph as a whole is cuDNN saying it cannot express it.
    throw Unsupported(status_message(status, "cuDNN refused the operation graph (" + out_->summary + ")"));
  std::sort(out_->bound.begin(), out_->bound.end(),
            [](const BoundTensor& a, const BoundTensor& b) { return a.uid < b.uid; });
  return out_;
}

std::shared_ptr<OpGraph> lower_graph(const Graph& graph, std::shared_ptr<const Handle> handle) {
  if (auto types = graph.unsupported_types(); !types.empty())
    throw Unsupported("unsupported op " + types.front());
  Lowering low(graph, std::move(handle));
  for (const auto& node : graph.nodes) {
    switch (node.kind) {
      case OpKind::conv_fwd:
      case OpKind::conv_bwd_data:
      case OpKind::conv_bwd_weights:
        lower_conv(low, node);
        break;
      case OpKind::matmul:
        lower_matmul(low, node);
        break;
      case OpKind::pointwise:
        lower_pointwise(low, node);
        break;
      case OpKind::reduction:
        lower_reduction(low, node);
        break;
      case OpKind::layernorm:
        lower_layernorm(low, node);
        break;
      case OpKind::rmsnorm:
        lower_rmsnorm(low, node);
        break;
      case OpKind::batchnorm_inference:
        lower_batchnorm(low, node);
        break;
      case OpKind::resample:
        throw Unsupported("the cudnn provider does not lower resample (pooling) yet");
      case OpKind::sdpa_fwd:
        lower_sdpa_fwd(low, node);
        break;
      case OpKind::sdpa_bwd:
        lower_sdpa_bwd(low, node);
        break;
      case OpKind::unsupported:
        throw Unsupported("unsupported op " + node.type);
    }
  }
  return low.finish();
}

}  // namespace dnnbench::cudnn
