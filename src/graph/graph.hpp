#pragma once
// The graph model: tensors and nodes of one hipDNN graph, with typed op settings.
// Reading and validation live in reader.hpp / validate.hpp; op knowledge in ops/.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "tensor/dtype.hpp"

namespace dnnbench {

struct TensorDesc {
  std::int64_t uid = 0;
  std::string name;
  std::vector<std::int64_t> dims;     // logical dims (N, C, (D,) H, W for convolutions)
  std::vector<std::int64_t> strides;  // element strides, same rank as dims
  DataType dtype = DataType::unset;
  bool is_virtual = false;
  std::optional<double> scalar_value;  // by-value scalar (e.g. epsilon), bound from the host

  std::int64_t element_count() const;
  // Elements the storage must hold: 1 + max offset reached by any index.
  std::int64_t storage_elements() const;
  std::int64_t storage_bytes() const {
    return storage_elements() * static_cast<std::int64_t>(dtype_size(dtype));
  }
  // Storage offset of a logical index.
  std::int64_t offset(const std::vector<std::int64_t>& index) const;
  bool is_by_value() const { return scalar_value.has_value(); }
};

enum class OpKind {
  conv_fwd,
  conv_bwd_data,
  conv_bwd_weights,
  matmul,
  pointwise,
  batchnorm_inference,  // BatchnormInferenceAttributes and ...VarianceExt
  batchnorm_training,   // BatchnormAttributes: statistics of the batch, optional running averages
  batchnorm_backward,   // BatchnormBackwardAttributes: dx, dscale, dbias
  layernorm,
  rmsnorm,
  reduction,
  resample,
  sdpa_fwd,     // SdpaAttributes: scaled dot-product attention, forward
  sdpa_bwd,     // SdpaBackwardAttributes
  unsupported,  // parsed, not executed: rows become `skipped: unsupported op <type>`
};

struct ConvParams {
  bool cross_correlation = true;  // false: CONVOLUTION (flipped filter)
  std::vector<std::int64_t> pre_padding, post_padding, stride, dilation;  // one per spatial dim
  std::int64_t groups = 1;  // derived by validation from x/w channel counts
};

struct MatmulParams {};

enum class PointwiseOp {
  add,
  sub,
  mul,
  div,
  max,
  min,
  pow,
  relu,
  gelu,
  gelu_tanh,
  sigmoid,
  tanh,
  swish,
  elu,
  softplus,
  exp,
  log,
  sqrt,
  rsqrt,
  abs,
  neg,
  recip,
  identity,
};
struct PointwiseParams {
  PointwiseOp op = PointwiseOp::identity;
  std::optional<double> relu_lower_clip, relu_upper_clip, relu_lower_clip_slope;
  std::optional<double> swish_beta, elu_alpha, softplus_beta;
  int arity() const;  // inputs used: 1 or 2
};

enum class NormPhase { inference, training };
struct BatchnormParams {
  bool variance_ext = false;  // ...VarianceExt: `variance` + `epsilon` instead of `inv_variance`
};
struct LayernormParams {
  NormPhase phase = NormPhase::inference;
  std::int64_t normalized_dim_count = 1;  // the last k dims are normalized
};
struct RmsnormParams {
  NormPhase phase = NormPhase::inference;
};

enum class ReductionMode { add, mul, min, max, amax, avg, norm1, norm2, mul_no_zeros };
struct ReductionParams {
  ReductionMode mode = ReductionMode::add;
};

enum class ResampleMode { maxpool, avgpool_include_padding, avgpool_exclude_padding };
struct ResampleParams {
  ResampleMode mode = ResampleMode::maxpool;
  std::vector<std::int64_t> window, stride, pre_padding, post_padding;
};

// Attention (graph/ops/sdpa.cpp, docs/attention.md). Row i of the query attends to key j when
// every mask keeps (i, j); with `shift` = s_kv - s_q for a bottom-right diagonal (else 0), where
// s_q and s_kv are the batch's actual lengths (seq_len tensors under padding, else the dims):
//   padding:     i < s_q and j < s_kv
//   right bound: j <= i + shift + right_bound   (causal: right_bound 0)
//   left bound:  j >  i + shift - left_bound    (a window of left_bound keys ending at the diagonal)
enum class DiagonalAlignment { top_left, bottom_right };
struct SdpaParams {
  std::optional<double> scale_value;  // attn_scale_value; absent: the `scale` input, else 1
  DiagonalAlignment alignment = DiagonalAlignment::top_left;
  std::optional<std::int64_t> left_bound, right_bound;  // causal masks set right_bound = 0
  bool padding_mask = false;                            // seq_len_q / seq_len_kv bound the rows
  bool generate_stats = false;                          // forward: stats output (logsumexp per row)
};

using OpParams = std::variant<std::monostate, ConvParams, MatmulParams, PointwiseParams, BatchnormParams,
                              LayernormParams, RmsnormParams, ReductionParams, ResampleParams, SdpaParams>;

// A tensor role of a node: the file's key without the `_tensor_uid` suffix ("x", "in_0").
struct Port {
  std::string role;
  std::int64_t uid = 0;
};

struct Node {
  std::string name;
  std::string type;  // the file's `type`, e.g. "ConvolutionFwdAttributes"
  OpKind kind = OpKind::unsupported;
  DataType compute_type = DataType::unset;  // resolved: an `unset` node takes the graph's
  std::vector<Port> inputs;                 // roles present with a uid (null roles are dropped)
  std::vector<Port> outputs;
  OpParams params;
  // Where the file put the op settings: "parameters" or "attributes" ("" when built in memory
  // or absent); used to point error messages at the right JSON path.
  std::string settings_key;

  std::optional<std::int64_t> input(std::string_view role) const;
  std::optional<std::int64_t> output(std::string_view role) const;
  template <class T>
  const T& as() const {
    return std::get<T>(params);
  }
};

struct Graph {
  std::string name;
  std::string source_path;  // file it was read from ("" when built in memory)
  // The hash of the file's canonical content (graph/content_hash.hpp), set by the
  // loader; "" for a graph built or changed in memory. What a provider may key results kept
  // between runs on (providers/compiled_plan_cache.hpp).
  std::string content_hash;
  DataType io_type = DataType::unset, compute_type = DataType::unset, intermediate_type = DataType::unset;
  std::vector<TensorDesc> tensors;
  std::vector<Node> nodes;  // topological order

  const TensorDesc& tensor(std::int64_t uid) const;  // throws std::out_of_range
  const TensorDesc* find_tensor(std::int64_t uid) const;
  // Non-virtual tensors no node produces: what the user binds and the tool fills.
  std::vector<std::int64_t> input_uids() const;
  // Non-virtual tensors some node produces: what is checked against the reference.
  std::vector<std::int64_t> output_uids() const;
  // Node types this tool cannot execute, in order of first appearance (empty when all run).
  std::vector<std::string> unsupported_types() const;
};

// Parses/prints op enums with the file spellings.
std::optional<PointwiseOp> parse_pointwise_op(std::string_view name);
std::string_view pointwise_op_name(PointwiseOp op);
std::string_view reduction_mode_name(ReductionMode mode);
std::string_view resample_mode_name(ResampleMode mode);
std::string_view op_kind_name(OpKind kind);

}  // namespace dnnbench
