#pragma once
// Lowering a graph onto oneDNN: one anchor op (conv, matmul, norm, reduction, pooling, or a
// lone pointwise op) becomes one primitive; the chain of pointwise nodes after it becomes
// post-ops. Each op family lowers its anchor in its own file (conv.cpp, matmul.cpp, ...);
// lowering.cpp finds the anchor and the chain and builds the post-ops.
#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.hpp"

namespace dnnbench::onednn {

// The `layout` knob: `any` lets the implementation choose every layout (reorders in bind /
// publish); `plain_data` keeps the user's strides for activations and lets it choose the
// weights' layout only (reordered once, as frameworks do); `plain` runs on the user's strides.
enum class Layout { any, plain_data, plain };
inline constexpr Layout kLayouts[] = {Layout::any, Layout::plain_data, Layout::plain};
std::string_view layout_value(Layout layout);

// How a graph tensor reaches a primitive argument and back.
enum class Transfer {
  direct,                    // same values; reordered when the implementation's layout differs
  inv_variance_to_variance,  // input: variance = 1 / inv_variance^2 (the primitive's epsilon is 0)
  variance_to_inv_variance,  // output: inv_variance = 1 / sqrt(variance + epsilon)
  discard,                   // an output the graph leaves virtual: internal memory, never published
};

struct ArgSpec {
  int arg = 0;        // DNNL_ARG_*
  std::string label;  // "src", "wei", "dst", "mean", "post_op_1_src1", ...
  std::int64_t uid = 0;
  bool output = false;
  DataType dtype = DataType::unset;
  dnnl::memory::desc md;  // the user's storage seen with the primitive's dims
  Transfer transfer = Transfer::direct;
  double epsilon = 0;       // for variance_to_inv_variance
  bool from_attr = false;   // a post-op operand: its md is fixed in the attributes
  bool show_layout = true;  // listed in the engine's layout note
};

// One eltwise step: a post-op `append_eltwise(scale, alg, alpha, beta)` (scale * alg(x)), or an
// eltwise primitive (only with scale 1).
struct EltwiseStep {
  dnnl::algorithm alg;
  float alpha = 0, beta = 0;
  float scale = 1;
};

// A primitive-descriptor iterator with what it points into: oneDNN 2.x iterators keep pointers
// to the operation descriptor and the forward hint, which must outlive them.
struct PdIterator {
  std::shared_ptr<const void> op_desc;
  std::shared_ptr<const PdIterator> hint;
  dnnl::primitive_attr attr;
  dnnl::primitive_desc pd;  // empty when oneDNN has no implementation
  explicit operator bool() const { return static_cast<bool>(pd); }
};

struct Lowered {
  std::string primitive;     // oneDNN primitive kind, for messages ("convolution_forward")
  bool layout_knob = false;  // the primitive accepts format `any` for its main tensors
  std::vector<ArgSpec> args;
  std::vector<std::int64_t> dst_dims;         // the primitive's dst dims, what post-op operands broadcast to
  std::vector<EltwiseStep> leading_post_ops;  // steps of the anchor itself that run as post-ops
  // The primitive descriptor iterator at the library's pick, or an empty one when no
  // implementation exists. Layout::plain binds every tensor with the user's strides.
  std::function<PdIterator(Layout, const dnnl::primitive_attr&)> make_pd;
  dnnl::primitive_attr attr;  // post-ops and user scratchpad; set by lower_graph
};

struct AnchorContext {
  const Graph& graph;
  const Node& node;
  std::int64_t chained = 0;    // the anchor output the pointwise chain continues (0: no chain)
  std::int64_t final_uid = 0;  // the graph tensor receiving the chain's result

  // The graph tensor that receives anchor output `uid` (the chain's final tensor for the
  // chained output).
  const TensorDesc& output_tensor(std::int64_t uid) const;
  // Uid of a required input / output role, accepting the alternative spellings given.
  std::int64_t input(std::initializer_list<std::string_view> roles) const;
  std::int64_t output(std::initializer_list<std::string_view> roles) const;
  std::optional<std::int64_t> optional_input(std::initializer_list<std::string_view> roles) const;
  std::optional<std::int64_t> optional_output(std::initializer_list<std::string_view> roles) const;
  // The by-value scalar of an input role (epsilon); Unsupported when it is not by-value.
  double scalar(std::int64_t uid) const;
};

// An argument bound to graph tensor `t`, seen through `md`.
ArgSpec tensor_arg(int arg, std::string label, const TensorDesc& t, bool output,
                   const dnnl::memory::desc& md);

// Throws Unsupported unless `compute` can be honoured by oneDNN (it has no fp64 accumulation).
void check_compute_type(const AnchorContext& ctx);

// Creates a pd iterator from an op descriptor (a copy of it is kept alive with the iterator);
// oneDNN's "unimplemented" gives an empty iterator, its other errors throw Unsupported.
PdIterator make_pd_iterator(std::shared_ptr<const void> op_desc, const void* c_op_desc,
                            const dnnl::primitive_attr& attr, std::shared_ptr<const PdIterator> hint);
template <class Desc>
PdIterator make_pd_iterator(const Desc& desc, const dnnl::primitive_attr& attr,
                            std::shared_ptr<const PdIterator> hint = nullptr) {
  auto owned = std::make_shared<const Desc>(desc);
  const void* c_op_desc = &owned->data;
  return make_pd_iterator(std::move(owned), c_op_desc, attr, std::move(hint));
}
// Runs `fn` (which builds oneDNN descriptors), turning dnnl::error into Unsupported.
template <class Fn>
auto translate_errors(std::string_view what, Fn&& fn) -> decltype(fn());

// The families. Each lowers the anchor node; throws Unsupported with the reason.
Lowered lower_conv(const AnchorContext& ctx);  // forward, backward data, backward weights
Lowered lower_matmul(const AnchorContext& ctx);
Lowered lower_pointwise(const AnchorContext& ctx);  // a lone pointwise op: eltwise or binary
Lowered lower_batchnorm(const AnchorContext& ctx);
Lowered lower_layernorm(const AnchorContext& ctx);
Lowered lower_reduction(const AnchorContext& ctx);
Lowered lower_resample(const AnchorContext& ctx);

// Pointwise knowledge shared by the anchor and the post-op chain (pointwise.cpp).
// The eltwise steps of a unary op; Unsupported when no oneDNN algorithm expresses it.
std::vector<EltwiseStep> eltwise_steps(const PointwiseParams& params);
// The binary algorithm of a binary op; nullopt for pow (oneDNN 2.x has no binary pow).
std::optional<dnnl::algorithm> binary_algorithm(PointwiseOp op);

// The whole graph: anchor + post-op chain. Throws Unsupported with the reason.
Lowered lower_graph(const Graph& graph);

// ---- implementation of the template above ----
[[noreturn]] void throw_unsupported(std::string_view what, const dnnl::error& e);
template <class Fn>
auto translate_errors(std::string_view what, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const dnnl::error& e) {
    throw_unsupported(what, e);
  }
}

}  // namespace dnnbench::onednn
