#include "graph/graph.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace dnnbench {

std::int64_t TensorDesc::element_count() const {
  std::int64_t n = 1;
  for (auto d : dims) n *= d;
  return n;
}

std::int64_t TensorDesc::storage_elements() const {
  if (element_count() == 0) return 0;
  std::int64_t max_offset = 0;
  for (std::size_t k = 0; k < dims.size(); ++k)
    max_offset += (dims[k] - 1) * std::max<std::int64_t>(strides[k], 0);
  return max_offset + 1;
}

std::int64_t TensorDesc::offset(const std::vector<std::int64_t>& index) const {
  std::int64_t off = 0;
  for (std::size_t k = 0; k < index.size(); ++k) off += index[k] * strides[k];
  return off;
}

int PointwiseParams::arity() const {
  switch (op) {
    case PointwiseOp::add:
    case PointwiseOp::sub:
    case PointwiseOp::mul:
    case PointwiseOp::div:
    case PointwiseOp::max:
    case PointwiseOp::min:
    case PointwiseOp::pow:
      return 2;
    default:
      return 1;
  }
}

namespace {

std::optional<std::int64_t> find_port(const std::vector<Port>& ports, std::string_view role) {
  for (const auto& port : ports)
    if (port.role == role) return port.uid;
  return std::nullopt;
}

struct PointwiseName {
  PointwiseOp op;
  std::string_view name;
};
// File spellings; the first per op is canonical.
constexpr PointwiseName kPointwiseNames[] = {
    {PointwiseOp::add, "add"},
    {PointwiseOp::sub, "sub"},
    {PointwiseOp::mul, "mul"},
    {PointwiseOp::div, "div"},
    {PointwiseOp::max, "max"},
    {PointwiseOp::min, "min"},
    {PointwiseOp::pow, "pow"},
    {PointwiseOp::relu, "relu_fwd"},
    {PointwiseOp::gelu, "gelu_fwd"},
    {PointwiseOp::gelu_tanh, "gelu_approx_tanh_fwd"},
    {PointwiseOp::sigmoid, "sigmoid_fwd"},
    {PointwiseOp::tanh, "tanh_fwd"},
    {PointwiseOp::swish, "swish_fwd"},
    {PointwiseOp::elu, "elu_fwd"},
    {PointwiseOp::softplus, "softplus_fwd"},
    {PointwiseOp::exp, "exp"},
    {PointwiseOp::log, "log"},
    {PointwiseOp::sqrt, "sqrt"},
    {PointwiseOp::rsqrt, "rsqrt"},
    {PointwiseOp::abs, "abs"},
    {PointwiseOp::neg, "neg"},
    {PointwiseOp::recip, "reciprocal"},
    {PointwiseOp::identity, "identity"},
    {PointwiseOp::relu, "relu"},
    {PointwiseOp::gelu, "gelu"},
    {PointwiseOp::gelu_tanh, "gelu_tanh_fwd"},
    {PointwiseOp::gelu_tanh, "gelu_tanh"},
    {PointwiseOp::sigmoid, "sigmoid"},
    {PointwiseOp::tanh, "tanh"},
    {PointwiseOp::swish, "swish"},
    {PointwiseOp::elu, "elu"},
    {PointwiseOp::softplus, "softplus"},
    {PointwiseOp::max, "maximum"},
    {PointwiseOp::min, "minimum"},
    {PointwiseOp::recip, "recip"},
};

}  // namespace

std::optional<std::int64_t> Node::input(std::string_view role) const {
  return find_port(inputs, role);
}
std::optional<std::int64_t> Node::output(std::string_view role) const {
  return find_port(outputs, role);
}

const TensorDesc* Graph::find_tensor(std::int64_t uid) const {
  for (const auto& t : tensors)
    if (t.uid == uid) return &t;
  return nullptr;
}

const TensorDesc& Graph::tensor(std::int64_t uid) const {
  if (const auto* t = find_tensor(uid)) return *t;
  throw std::out_of_range("graph '" + name + "' has no tensor with uid " + std::to_string(uid));
}

std::vector<std::int64_t> Graph::input_uids() const {
  std::set<std::int64_t> produced;
  for (const auto& node : nodes)
    for (const auto& port : node.outputs) produced.insert(port.uid);
  std::vector<std::int64_t> uids;
  for (const auto& node : nodes)
    for (const auto& port : node.inputs) {
      const auto* t = find_tensor(port.uid);
      if (t && !t->is_virtual && !produced.count(port.uid) &&
          std::find(uids.begin(), uids.end(), port.uid) == uids.end())
        uids.push_back(port.uid);
    }
  return uids;
}

std::vector<std::int64_t> Graph::output_uids() const {
  std::vector<std::int64_t> uids;
  for (const auto& node : nodes)
    for (const auto& port : node.outputs) {
      const auto* t = find_tensor(port.uid);
      if (t && !t->is_virtual && std::find(uids.begin(), uids.end(), port.uid) == uids.end())
        uids.push_back(port.uid);
    }
  return uids;
}

std::vector<std::string> Graph::unsupported_types() const {
  std::vector<std::string> types;
  for (const auto& node : nodes)
    if (node.kind == OpKind::unsupported && std::find(types.begin(), types.end(), node.type) == types.end())
      types.push_back(node.type);
  return types;
}

std::optional<PointwiseOp> parse_pointwise_op(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const auto& entry : kPointwiseNames)
    if (entry.name == lower) return entry.op;
  return std::nullopt;
}

std::string_view pointwise_op_name(PointwiseOp op) {
  for (const auto& entry : kPointwiseNames)
    if (entry.op == op) return entry.name;
  return "?";
}

std::string_view reduction_mode_name(ReductionMode mode) {
  switch (mode) {
    case ReductionMode::add:
      return "ADD";
    case ReductionMode::mul:
      return "MUL";
    case ReductionMode::min:
      return "MIN";
    case ReductionMode::max:
      return "MAX";
    case ReductionMode::amax:
      return "AMAX";
    case ReductionMode::avg:
      return "AVG";
    case ReductionMode::norm1:
      return "NORM1";
    case ReductionMode::norm2:
      return "NORM2";
    case ReductionMode::mul_no_zeros:
      return "MUL_NO_ZEROS";
  }
  return "?";
}

std::string_view resample_mode_name(ResampleMode mode) {
  switch (mode) {
    case ResampleMode::maxpool:
      return "MAXPOOL";
    case ResampleMode::avgpool_include_padding:
      return "AVGPOOL_INCLUDE_PADDING";
    case ResampleMode::avgpool_exclude_padding:
      return "AVGPOOL_EXCLUDE_PADDING";
  }
  return "?";
}

std::string_view op_kind_name(OpKind kind) {
  switch (kind) {
    case OpKind::conv_fwd:
      return "conv_fwd";
    case OpKind::conv_bwd_data:
      return "conv_bwd_data";
    case OpKind::conv_bwd_weights:
      return "conv_bwd_weights";
    case OpKind::matmul:
      return "matmul";
    case OpKind::pointwise:
      return "pointwise";
    case OpKind::batchnorm_inference:
      return "batchnorm_inference";
    case OpKind::batchnorm_training:
      return "batchnorm_training";
    case OpKind::batchnorm_backward:
      return "batchnorm_backward";
    case OpKind::layernorm:
      return "layernorm";
    case OpKind::rmsnorm:
      return "rmsnorm";
    case OpKind::reduction:
      return "reduction";
    case OpKind::resample:
      return "resample";
    case OpKind::sdpa_fwd:
      return "sdpa_fwd";
    case OpKind::sdpa_bwd:
      return "sdpa_bwd";
    case OpKind::unsupported:
      return "unsupported";
  }
  return "?";
}

}  // namespace dnnbench
