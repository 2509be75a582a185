#include "providers/onednn/lowering.hpp"

#include <oneapi/dnnl/dnnl_debug.h>

#include <algorithm>

#include "providers/onednn/dnnl_shim.hpp"
#include "providers/provider.hpp"

namespace dnnbench::onednn {

std::string_view layout_value(Layout layout) {
  switch (layout) {
    case Layout::any:
      return "any";
    case Layout::plain_data:
      return "plain_data";
    case Layout::plain:
      break;
  }
  return "plain";
}

void throw_unsupported(std::string_view what, const dnnl::error& e) {
  throw Unsupported(std::string(what) + ": oneDNN says " + e.what() + " (" + dnnl_status2str(e.status) + ")");
}

namespace {

std::optional<std::int64_t> find_role(const std::vector<Port>& ports,
                                      std::initializer_list<std::string_view> roles) {
  for (auto role : roles)
    for (const auto& port : ports)
      if (port.role == role) return port.uid;
  return std::nullopt;
}

std::string role_list(std::initializer_list<std::string_view> roles) {
  std::string text;
  for (auto role : roles) text += (text.empty() ? "'" : " or '") + std::string(role) + "'";
  return text;
}

}  // namespace

const TensorDesc& AnchorContext::output_tensor(std::int64_t uid) const {
  return graph.tensor(uid == chained ? final_uid : uid);
}

std::optional<std::int64_t> AnchorContext::optional_input(
    std::initializer_list<std::string_view> roles) const {
  return find_role(node.inputs, roles);
}
std::optional<std::int64_t> AnchorContext::optional_output(
    std::initializer_list<std::string_view> roles) const {
  return find_role(node.outputs, roles);
}
std::int64_t AnchorContext::input(std::initializer_list<std::string_view> roles) const {
  if (auto uid = optional_input(roles)) return *uid;
  throw Unsupported("node '" + node.name + "' has no input " + role_list(roles));
}
std::int64_t AnchorContext::output(std::initializer_list<std::string_view> roles) const {
  if (auto uid = optional_output(roles)) return *uid;
  throw Unsupported("node '" + node.name + "' has no output " + role_list(roles));
}

double AnchorContext::scalar(std::int64_t uid) const {
  const auto& t = graph.tensor(uid);
  if (!t.scalar_value)
    throw Unsupported("tensor '" + t.name +
                      "' must be a by-value scalar: oneDNN fixes it when the primitive is built");
  return *t.scalar_value;
}

ArgSpec tensor_arg(int arg, std::string label, const TensorDesc& t, bool output,
                   const dnnl::memory::desc& md) {
  ArgSpec spec;
  spec.arg = arg;
  spec.label = std::move(label);
  spec.uid = t.uid;
  spec.output = output;
  spec.dtype = t.dtype;
  spec.md = md;
  return spec;
}

void check_compute_type(const AnchorContext& ctx) {
  if (ctx.node.compute_type == DataType::f64)
    throw Unsupported("compute type 'double': oneDNN 2.x has no fp64 accumulation");
}

PdIterator make_pd_iterator(std::shared_ptr<const void> op_desc, const void* c_op_desc,
                            const dnnl::primitive_attr& attr, std::shared_ptr<const PdIterator> hint) {
  PdIterator it;
  it.op_desc = std::move(op_desc);
  it.hint = std::move(hint);
  it.attr = attr;
  try {
    it.pd = dnnl::primitive_desc(static_cast<const_dnnl_op_desc_t>(c_op_desc), &it.attr, cpu_engine(),
                                 it.hint ? it.hint->pd.get() : nullptr, false);
  } catch (const dnnl::error& e) {
    // No implementation is an empty list of engines; anything else is a reason worth telling.
    if (e.status != dnnl_unimplemented) throw_unsupported("creating the primitive descriptor", e);
  }
  return it;
}

namespace {

struct Chain {
  std::int64_t chained = 0;    // anchor output the chain continues
  std::int64_t final_uid = 0;  // last chain output
  std::vector<const Node*> nodes;
};

int consumer_count(const Graph& graph, std::int64_t uid) {
  int n = 0;
  for (const auto& node : graph.nodes)
    for (const auto& port : node.inputs) n += port.uid == uid;
  return n;
}

bool produced_by_a_node(const Graph& graph, std::int64_t uid) {
  for (const auto& node : graph.nodes)
    for (const auto& port : node.outputs)
      if (port.uid == uid) return true;
  return false;
}

[[noreturn]] void not_a_chain(const Node& node, const std::string& why) {
  throw Unsupported("graph is not one anchor op followed by a chain of pointwise ops (node '" + node.name +
                    "': " + why + "); oneDNN runs one primitive with post-ops");
}

Chain find_chain(const Graph& graph) {
  Chain chain;
  const Node& anchor = graph.nodes.front();
  if (graph.nodes.size() == 1) return chain;
  const Node& first = graph.nodes[1];
  for (const auto& out : anchor.outputs)
    for (const auto& in : first.inputs)
      if (in.uid == out.uid) chain.chained = out.uid;
  if (chain.chained == 0) not_a_chain(first, "it does not consume an output of '" + anchor.name + "'");

  std::int64_t previous = chain.chained;
  for (std::size_t i = 1; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    if (node.kind != OpKind::pointwise) not_a_chain(node, "only pointwise ops can follow the anchor");
    const auto& prev = graph.tensor(previous);
    if (!prev.is_virtual) not_a_chain(node, "its input '" + prev.name + "' is not virtual");
    if (consumer_count(graph, previous) != 1)
      not_a_chain(node, "'" + prev.name + "' has more than one consumer");
    const auto in0 = node.input("in_0"), in1 = node.input("in_1");
    if (in0 != previous && in1 != previous)
      not_a_chain(node, "it does not consume the previous node's output '" + prev.name + "'");
    const auto out = node.output("out_0");
    if (!out) not_a_chain(node, "it has no output 'out_0'");
    chain.nodes.push_back(&node);
    previous = *out;
  }
  if (graph.tensor(previous).is_virtual) not_a_chain(*chain.nodes.back(), "its output is virtual");
  chain.final_uid = previous;
  return chain;
}

Lowered lower_anchor(const AnchorContext& ctx) {
  switch (ctx.node.kind) {
    case OpKind::conv_fwd:
    case OpKind::conv_bwd_data:
    case OpKind::conv_bwd_weights:
      return lower_conv(ctx);
    case OpKind::matmul:
      return lower_matmul(ctx);
    case OpKind::pointwise:
      return lower_pointwise(ctx);
    case OpKind::batchnorm_inference:
      return lower_batchnorm(ctx);
    case OpKind::layernorm:
      return lower_layernorm(ctx);
    case OpKind::reduction:
      return lower_reduction(ctx);
    case OpKind::resample:
      return lower_resample(ctx);
    case OpKind::rmsnorm:
      throw Unsupported("RMSNorm: oneDNN 2.x has no RMS normalization primitive");
    case OpKind::batchnorm_training:
    case OpKind::batchnorm_backward:
      throw Unsupported("the onednn provider lowers batch-norm inference only");
    case OpKind::sdpa_fwd:
    case OpKind::sdpa_bwd:
      throw Unsupported("attention: oneDNN 2.6 has no attention (SDPA) primitive");
    case OpKind::unsupported:
      break;
  }
  throw Unsupported("op '" + ctx.node.type + "' has no oneDNN mapping");
}

// Post-ops under construction. Adjacent linear steps merge into one: oneDNN 2.6's gemm:jit
// matmul applies the first linear post-op's alpha to every later linear post-op (seen on
// 2.6.3), so fewer linear post-ops are both faster and safer.
class PostOpList {
 public:
  void eltwise(const EltwiseStep& step) {
    if (step.alg == dnnl::algorithm::eltwise_linear && !entries_.empty() && !entries_.back().binary &&
        entries_.back().step.alg == dnnl::algorithm::eltwise_linear) {
      // s2 * (a2 * s1 * (a1 x + b1) + b2) as one linear step.
      EltwiseStep& last = entries_.back().step;
      const float a = step.scale * step.alpha * last.scale * last.alpha;
      const float b = step.scale * (step.alpha * last.scale * last.beta + step.beta);
      last = EltwiseStep{dnnl::algorithm::eltwise_linear, a, b, 1.f};
      return;
    }
    entries_.push_back(Entry{false, step, dnnl::algorithm::binary_add, {}});
  }
  // Returns the post-op's index, for DNNL_ARG_ATTR_MULTIPLE_POST_OP.
  int binary(dnnl::algorithm alg, const dnnl::memory::desc& md) {
    entries_.push_back(Entry{true, {}, alg, md});
    return static_cast<int>(entries_.size()) - 1;
  }
  dnnl::post_ops build() const {
    dnnl::post_ops ops;
    for (const auto& e : entries_)
      if (e.binary)
        ops.append_binary(e.binary_alg, e.md);
      else
        ops.append_eltwise(e.step.scale, e.step.alg, e.step.alpha, e.step.beta);
    return ops;
  }

 private:
  struct Entry {
    bool binary = false;
    EltwiseStep step{dnnl::algorithm::eltwise_linear};
    dnnl::algorithm binary_alg = dnnl::algorithm::binary_add;
    dnnl::memory::desc md;
  };
  std::vector<Entry> entries_;
};

// Appends the post-ops of one chain node; `previous` is the chain value it continues.
void append_chain_node(const Graph& graph, const Node& node, std::int64_t previous, Lowered& low,
                       PostOpList& ops) {
  const auto& params = node.as<PointwiseParams>();
  const auto& out = graph.tensor(*node.output("out_0"));
  if (out.dims != graph.tensor(previous).dims)
    throw Unsupported("pointwise node '" + node.name +
                      "' changes the shape; oneDNN post-ops keep the dst shape");
  if (params.arity() == 1) {
    for (const auto& step : eltwise_steps(params)) ops.eltwise(step);
    return;
  }
  auto alg = binary_algorithm(params.op);
  if (!alg)
    throw Unsupported("pointwise '" + std::string(pointwise_op_name(params.op)) +
                      "' of two tensors has no oneDNN binary algorithm");
  const bool chain_first = node.input("in_0") == previous;
  const auto other_uid = chain_first ? node.input("in_1") : node.input("in_0");
  if (!other_uid) throw Unsupported("pointwise node '" + node.name + "' lacks its second input");
  const auto& other = graph.tensor(*other_uid);
  if (other.is_virtual || produced_by_a_node(graph, other.uid))
    throw Unsupported("pointwise node '" + node.name + "': its other operand '" + other.name +
                      "' must be a graph input for a oneDNN binary post-op");
  // other (op) chain: add, mul, max, min commute; other - chain = -(chain - other).
  const bool negate_after = !chain_first && *alg == dnnl::algorithm::binary_sub;
  if (!chain_first && *alg == dnnl::algorithm::binary_div)
    throw Unsupported("pointwise node '" + node.name +
                      "' divides by the chain value; oneDNN binary post-ops divide the chain value");
  auto dims = other.dims;
  auto strides = other.strides;
  if (dims.size() > low.dst_dims.size())
    throw Unsupported("post-op operand '" + other.name + "' has a higher rank than the primitive's dst");
  pad_to_rank(dims, strides, low.dst_dims.size());
  for (std::size_t k = 0; k < dims.size(); ++k)
    if (dims[k] != 1 && dims[k] != low.dst_dims[k])
      throw Unsupported("post-op operand '" + other.name + "' does not broadcast to the dst shape");
  const auto md = strided_md(dims, other.dtype, strides);
  const int index = ops.binary(*alg, md);
  ArgSpec arg;
  arg.arg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(index) | DNNL_ARG_SRC_1;
  arg.label = "post_op_" + std::to_string(index) + "_src1";
  arg.uid = other.uid;
  arg.dtype = other.dtype;
  arg.md = md;
  arg.from_attr = true;
  arg.show_layout = false;
  low.args.push_back(std::move(arg));
  if (negate_after) ops.eltwise({dnnl::algorithm::eltwise_linear, -1.f, 0.f});
}

}  // namespace

Lowered lower_graph(const Graph& graph) {
  if (graph.nodes.empty()) throw Unsupported("graph has no nodes");
  return translate_errors("lowering the graph", [&] {
    const Chain chain = find_chain(graph);
    const AnchorContext ctx{graph, graph.nodes.front(), chain.chained, chain.final_uid};
    Lowered low = lower_anchor(ctx);
    for (const auto& arg : low.args)
      if (arg.transfer != Transfer::discard && graph.tensor(arg.uid).is_virtual)
        throw Unsupported("virtual tensor '" + graph.tensor(arg.uid).name + "' would need memory (" +
                          arg.label + " of " + low.primitive + ") but only non-virtual tensors are bound");

    PostOpList ops;
    for (const auto& step : low.leading_post_ops) ops.eltwise(step);
    std::int64_t previous = chain.chained;
    for (const Node* node : chain.nodes) {
      append_chain_node(graph, *node, previous, low, ops);
      previous = *node->output("out_0");
    }
    low.attr.set_post_ops(ops.build());
    // The plan owns its scratchpad, so its size is the plan's workspace.
    low.attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    return low;
  });
}

}  // namespace dnnbench::onednn
