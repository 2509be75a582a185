// Norms. Batch-norm training is one NORM_FORWARD (BATCH_NORM, TRAINING) and its backward one
// NORM_BACKWARD, as the cuDNN frontend builds them: per-channel tensors as [1, C, 1, 1].
// Layer norm and RMS norm are one NORM_FORWARD each: cuDNN normalizes every dim after
// the first, so x is seen as [outer, inner, 1, 1] (the batch dims merged, then the normalized
// dims merged) when the graph normalizes trailing dims of a tensor whose groups are contiguous.
// Batch-norm inference is four pointwise ops, as the cuDNN frontend builds it.
#include <algorithm>

#include "graph/ops/norm_axes.hpp"
#include "providers/cudnn/lowering.hpp"
#include "providers/provider.hpp"

namespace dnnbench::cudnn {

namespace {

// [prod(dims[0..split)), prod(dims[split..)), 1, 1] when each group is one strided run.
std::optional<Shape> merged(const TensorDesc& t, std::size_t split) {
  auto group = [&](std::size_t lo, std::size_t hi) -> std::optional<std::pair<std::int64_t, std::int64_t>> {
    std::int64_t extent = 1, stride = 1;
    bool first = true;
    for (std::size_t i = hi; i-- > lo;) {
      if (t.dims[i] == 1) continue;
      if (first)
        stride = t.strides[i];
      else if (t.strides[i] != stride * extent)
        return std::nullopt;
      first = false;
      extent *= t.dims[i];
    }
    return std::make_pair(extent, stride);
  };
  const auto outer = group(0, split), inner = group(split, t.dims.size());
  if (!outer || !inner) return std::nullopt;
  // A 1-sized group's stride is free; the packed value keeps cuDNN's layout checks happy.
  const std::int64_t inner_stride = inner->first == 1 ? 1 : inner->second;
  const std::int64_t outer_stride = outer->first == 1 ? inner->first * inner_stride : outer->second;
  return Shape{{outer->first, inner->first, 1, 1}, {outer_stride, inner_stride, 1, 1}};
}

// The split point when `axes` are the trailing axes [split, rank); nullopt otherwise.
std::optional<std::size_t> trailing_split(const std::vector<int>& axes, std::size_t rank) {
  std::vector<int> sorted = axes;
  std::sort(sorted.begin(), sorted.end());
  if (sorted.empty()) return std::nullopt;
  for (std::size_t k = 0; k < sorted.size(); ++k)
    if (sorted[k] != static_cast<int>(rank - sorted.size() + k)) return std::nullopt;
  return rank - sorted.size();
}

std::optional<std::int64_t> find(const std::vector<Port>& ports, std::string_view role) {
  for (const auto& p : ports)
    if (p.role == role) return p.uid;
  return std::nullopt;
}

struct NormRoles {
  std::optional<std::int64_t> bias, mean, inv_variance;
};

void lower_norm(Lowering& low, const Node& node, cudnnBackendNormMode_t mode, NormPhase phase,
                const std::vector<int>& axes, const NormRoles& roles, std::string_view label) {
  const Graph& g = low.graph();
  const TensorDesc& x = g.tensor(input_uid(node, "x"));
  const auto split = trailing_split(axes, x.dims.size());
  if (!split || *split == 0)
    throw Unsupported("cuDNN's " + std::string(label) +
                      " normalizes the trailing dims after the batch dims; this graph normalizes other axes");
  // Each tensor seen through the same split: x, y as [outer, inner, 1, 1]; scale/bias as
  // [1, inner, 1, 1]; statistics as [outer, 1, 1, 1].
  auto view = [&](std::int64_t uid) {
    const TensorDesc& t = g.tensor(uid);
    TensorDesc padded = t;
    // A leading dim of 1 strides over everything after it (the old first dim and its stride, taken
    // before the insert: indexing after it read past the strides of a rank-1 scale).
    while (padded.dims.size() < x.dims.size()) {
      const std::int64_t outer = padded.dims.empty() ? 1 : padded.dims.front() * padded.strides.front();
      padded.dims.insert(padded.dims.begin(), 1);
      padded.strides.insert(padded.strides.begin(), outer);
    }
    auto shape = merged(padded, *split);
    if (!shape)
      throw Unsupported("tensor '" + t.name +
                        "': its batch or normalized dims are not contiguous, which cuDNN's " +
                        std::string(label) + " needs");
    return shape;
  };
  // What cuDNN was measured to refuse (H200, cuDNN 9.14, 2026-12-01), said before it refuses.
  std::int64_t inner = 1;
  for (std::size_t k = *split; k < x.dims.size(); ++k) inner *= x.dims[k];
  for (const std::optional<std::int64_t>& uid :
       {std::optional<std::int64_t>(input_uid(node, "scale")), roles.bias}) {
    if (!uid) continue;
    std::int64_t count = 1;
    for (const std::int64_t d : g.tensor(*uid).dims) count *= d;
    if (count != inner)
      low.hint("cuDNN's " + std::string(label) +
               " takes scale and bias with one value per normalized element (" + std::to_string(inner) +
               " here); '" + g.tensor(*uid).name + "' has " + std::to_string(count));
  }
  if (mode == CUDNN_RMS_NORM && phase == NormPhase::inference && roles.bias)
    low.hint("cuDNN 9.14 refuses RMS norm inference with a bias (the same graph without one runs)");
  const DataType compute = low.compute_dtype(node);
  const Shape eps_shape{{1, 1, 1, 1}, {1, 1, 1, 1}};

  Descriptor op(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR);
  set(op, CUDNN_ATTR_OPERATION_NORM_FWD_MODE, mode);
  set(op, CUDNN_ATTR_OPERATION_NORM_FWD_PHASE,
      phase == NormPhase::training ? CUDNN_NORM_FWD_TRAINING : CUDNN_NORM_FWD_INFERENCE);
  set(op, CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, low.tensor(x.uid, view(x.uid)));
  const std::int64_t scale = input_uid(node, "scale");
  set(op, CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, low.tensor(scale, view(scale)));
  if (roles.bias)
    set(op, CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC, low.tensor(*roles.bias, view(*roles.bias)));
  const std::int64_t eps = input_uid(node, "epsilon");
  if (!g.tensor(eps).is_by_value())
    throw Unsupported("epsilon must be a by-value scalar for the cudnn provider");
  // Epsilon is bound by host pointer in the compute type (the graph may store it as double).
  set(op, CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, low.tensor(eps, eps_shape, compute));
  if (roles.mean)
    set(op, CUDNN_ATTR_OPERATION_NORM_FWD_MEAN_DESC, low.tensor(*roles.mean, view(*roles.mean)));
  if (roles.inv_variance)
    set(op, CUDNN_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC,
        low.tensor(*roles.inv_variance, view(*roles.inv_variance)));
  const std::int64_t y = output_uid(node, "y");
  set(op, CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, low.tensor(y, view(y)));
  op.finalize(std::string(label) + " operation of node '" + node.name + "'");
  low.add_op(std::move(op), label);
}

}  // namespace

void lower_layernorm(Lowering& low, const Node& node) {
  const auto& p = node.as<LayernormParams>();
  NormRoles roles{find(node.inputs, "bias"), find(node.outputs, "mean"), find(node.outputs, "inv_variance")};
  lower_norm(low, node, CUDNN_LAYER_NORM, p.phase, layernorm_normalized_axes(low.graph(), node), roles,
             "layer_norm");
}

void lower_rmsnorm(Lowering& low, const Node& node) {
  const auto& p = node.as<RmsnormParams>();
  NormRoles roles{find(node.inputs, "bias"), std::nullopt, find(node.outputs, "inv_rms")};
  lower_norm(low, node, CUDNN_RMS_NORM, p.phase, rmsnorm_normalized_axes(low.graph(), node), roles,
             "rms_norm");
}

namespace {

// A per-channel tensor ([C] or [1, C, 1, ...]) as cuDNN's batch norm wants it: x's rank, C at
// axis 1, packed.
Shape per_channel(std::int64_t channels, std::size_t rank) {
  Shape s{std::vector<std::int64_t>(rank, 1), std::vector<std::int64_t>(rank, channels)};
  s.dims[1] = channels;
  s.strides[1] = 1;
  return s;
}

}  // namespace

void lower_batchnorm(Lowering& low, const Node& node) {
  const auto& p = node.as<BatchnormParams>();
  const Graph& g = low.graph();
  if (low.elementwise())
    for (const char* role : {"mean", "scale", "bias", p.variance_ext ? "variance" : "inv_variance"})
      if (auto h = broadcast_hint(g, input_uid(node, role), output_uid(node, "y"))) low.hint(*h);
  const cudnnDataType_t math = low.compute_type(node);
  const DataType inter = low.compute_dtype(node);
  const std::int64_t x = input_uid(node, "x");
  const Shape x_shape = low.shape_of(x);
  const Shape stat_shape = low.shape_of(input_uid(node, "mean"));

  // inv_variance, or 1/sqrt(variance + epsilon) for the VarianceExt form.
  const Descriptor* inv_var = nullptr;
  if (p.variance_ext) {
    const std::int64_t eps = input_uid(node, "epsilon");
    if (!g.tensor(eps).is_by_value())
      throw Unsupported("epsilon must be a by-value scalar for the cudnn provider");
    Shape scalar{std::vector<std::int64_t>(x_shape.dims.size(), 1),
                 std::vector<std::int64_t>(x_shape.dims.size(), 1)};
    const Descriptor& var_eps = low.virtual_tensor(stat_shape, inter);
    add_pointwise(low, CUDNN_POINTWISE_ADD, math, low.tensor(input_uid(node, "variance")),
                  &low.tensor(eps, scalar, inter), var_eps, "add");
    inv_var = &low.virtual_tensor(stat_shape, inter);
    add_pointwise(low, CUDNN_POINTWISE_RSQRT, math, var_eps, nullptr, *inv_var, "rsqrt");
  } else {
    inv_var = &low.tensor(input_uid(node, "inv_variance"));
  }
  const Descriptor& centered = low.virtual_tensor(x_shape, inter);
  add_pointwise(low, CUDNN_POINTWISE_SUB, math, low.tensor(x), &low.tensor(input_uid(node, "mean")), centered,
                "sub");
  const Descriptor& normalized = low.virtual_tensor(x_shape, inter);
  add_pointwise(low, CUDNN_POINTWISE_MUL, math, centered, inv_var, normalized, "mul");
  const Descriptor& scaled = low.virtual_tensor(x_shape, inter);
  add_pointwise(low, CUDNN_POINTWISE_MUL, math, normalized, &low.tensor(input_uid(node, "scale")), scaled,
                "mul");
  add_pointwise(low, CUDNN_POINTWISE_ADD, math, scaled, &low.tensor(input_uid(node, "bias")),
                low.tensor(output_uid(node, "y")), "add");
}

namespace {

// A per-channel role of the node as cuDNN's batch norm sees it.
const Descriptor& channel_tensor(Lowering& low, const Node& node, std::int64_t uid) {
  const TensorDesc& x = low.graph().tensor(input_uid(node, "x"));
  return low.tensor(uid, per_channel(x.dims[1], low.shape_of(x.uid).dims.size()));
}

std::int64_t by_value(const Lowering& low, const Node& node, std::string_view role) {
  const std::int64_t uid = input_uid(node, role);
  if (!low.graph().tensor(uid).is_by_value())
    throw Unsupported(std::string(role) + " must be a by-value scalar for the cudnn provider");
  return uid;
}

}  // namespace

void lower_batchnorm_training(Lowering& low, const Node& node) {
  const auto mean = find(node.outputs, "mean"), inv_variance = find(node.outputs, "inv_variance");
  if (!mean || !inv_variance)
    throw Unsupported(
        "cuDNN's training batch norm writes the saved mean and inv_variance: the graph has no "
        "such outputs");
  const DataType compute = low.compute_dtype(node);
  const Shape scalar{{1, 1, 1, 1}, {1, 1, 1, 1}};
  Descriptor op(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR);
  set(op, CUDNN_ATTR_OPERATION_NORM_FWD_MODE, CUDNN_BATCH_NORM);
  set(op, CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, CUDNN_NORM_FWD_TRAINING);
  set(op, CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, low.tensor(input_uid(node, "x")));
  set(op, CUDNN_ATTR_OPERATION_NORM_FWD_MEAN_DESC, channel_tensor(low, node, *mean));
  set(op, CUDNN_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC, channel_tensor(low, node, *inv_variance));
  set(op, CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, channel_tensor(low, node, input_uid(node, "scale")));
  set(op, CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC, channel_tensor(low, node, input_uid(node, "bias")));
  set(op, CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC,
      low.tensor(by_value(low, node, "epsilon"), scalar, compute));
  if (const auto prev_mean = find(node.inputs, "prev_running_mean")) {
    set(op, CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_MEAN_DESC, channel_tensor(low, node, *prev_mean));
    set(op, CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_VAR_DESC,
        channel_tensor(low, node, input_uid(node, "prev_running_variance")));
    set(op, CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_MEAN_DESC,
        channel_tensor(low, node, output_uid(node, "next_running_mean")));
    set(op, CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_VAR_DESC,
        channel_tensor(low, node, output_uid(node, "next_running_variance")));
    set(op, CUDNN_ATTR_OPERATION_NORM_FWD_EXP_AVG_FACTOR_DESC,
        low.tensor(by_value(low, node, "momentum"), scalar, compute));
  }
  set(op, CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, low.tensor(output_uid(node, "y")));
  op.finalize("batch_norm training operation of node '" + node.name + "'");
  low.add_op(std::move(op), "batch_norm_training");
}

void lower_batchnorm_backward(Lowering& low, const Node& node) {
  Descriptor op(CUDNN_BACKEND_OPERATION_NORM_BACKWARD_DESCRIPTOR);
  set(op, CUDNN_ATTR_OPERATION_NORM_BWD_MODE, CUDNN_BATCH_NORM);
  set(op, CUDNN_ATTR_OPERATION_NORM_BWD_XDESC, low.tensor(input_uid(node, "x")));
  set(op, CUDNN_ATTR_OPERATION_NORM_BWD_DYDESC, low.tensor(input_uid(node, "dy")));
  set(op, CUDNN_ATTR_OPERATION_NORM_BWD_MEAN_DESC, channel_tensor(low, node, input_uid(node, "mean")));
  set(op, CUDNN_ATTR_OPERATION_NORM_BWD_INV_VARIANCE_DESC,
      channel_tensor(low, node, input_uid(node, "inv_variance")));
  set(op, CUDNN_ATTR_OPERATION_NORM_BWD_SCALE_DESC, channel_tensor(low, node, input_uid(node, "scale")));
  set(op, CUDNN_ATTR_OPERATION_NORM_BWD_DSCALE_DESC, channel_tensor(low, node, output_uid(node, "dscale")));
  set(op, CUDNN_ATTR_OPERATION_NORM_BWD_DBIAS_DESC, channel_tensor(low, node, output_uid(node, "dbias")));
  set(op, CUDNN_ATTR_OPERATION_NORM_BWD_DXDESC, low.tensor(output_uid(node, "dx")));
  op.finalize("batch_norm backward operation of node '" + node.name + "'");
  low.add_op(std::move(op), "batch_norm_backward");
}

}  // namespace dnnbench::cudnn
