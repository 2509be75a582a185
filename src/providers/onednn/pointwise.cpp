// Pointwise ops on oneDNN: unary ops are eltwise algorithms (as a primitive or post-op),
// binary ops are binary algorithms (as a primitive or a binary post-op).
#include <limits>

#include "providers/onednn/dnnl_shim.hpp"
#include "providers/onednn/lowering.hpp"
#include "providers/provider.hpp"

namespace dnnbench::onednn {

namespace {

using alg = dnnl::algorithm;

std::vector<EltwiseStep> relu_steps(const PointwiseParams& p) {
  const double lower = p.relu_lower_clip.value_or(0.0);
  const double slope = p.relu_lower_clip_slope.value_or(0.0);
  const auto& upper = p.relu_upper_clip;
  if (slope == 0.0) {
    if (lower == 0.0 && !upper) return {{alg::eltwise_relu, 0.f, 0.f}};
    // clip_v2 = min(max(x, lower), upper); no upper clip is the largest float.
    const float hi = upper ? static_cast<float>(*upper) : std::numeric_limits<float>::max();
    return {{alg::eltwise_clip_v2, static_cast<float>(lower), hi}};
  }
  if (upper)
    throw Unsupported(
        "relu with both a lower-clip slope and an upper clip: no oneDNN algorithm expresses it");
  if (lower != 0.0)
    throw Unsupported("leaky relu with a nonzero lower clip: no oneDNN algorithm expresses it");
  return {{alg::eltwise_relu, static_cast<float>(slope), 0.f}};
}

std::vector<EltwiseStep> softplus_steps(const PointwiseParams& p) {
  // oneDNN 2.x soft_relu is log(1 + exp(x)) with no beta: softplus_beta(x) = soft_relu(beta x) / beta,
  // the 1/beta as the post-op's scale (a second linear post-op would meet a oneDNN 2.6 gemm:jit
  // matmul bug that reuses the first linear post-op's alpha for every later one).
  const double beta = p.softplus_beta.value_or(1.0);
  if (beta == 1.0) return {{alg::eltwise_soft_relu, 0.f, 0.f}};
  if (beta == 0.0) throw Unsupported("softplus with beta 0 is undefined");
  return {{alg::eltwise_linear, static_cast<float>(beta), 0.f},
          {alg::eltwise_soft_relu, 0.f, 0.f, static_cast<float>(1.0 / beta)}};
}

}  // namespace

std::vector<EltwiseStep> eltwise_steps(const PointwiseParams& p) {
  switch (p.op) {
    case PointwiseOp::relu:
      return relu_steps(p);
    case PointwiseOp::gelu:
      return {{alg::eltwise_gelu_erf, 0.f, 0.f}};
    case PointwiseOp::gelu_tanh:
      return {{alg::eltwise_gelu_tanh, 0.f, 0.f}};
    case PointwiseOp::sigmoid:
      return {{alg::eltwise_logistic, 0.f, 0.f}};
    case PointwiseOp::tanh:
      return {{alg::eltwise_tanh, 0.f, 0.f}};
    case PointwiseOp::swish:
      return {{alg::eltwise_swish, static_cast<float>(p.swish_beta.value_or(1.0)), 0.f}};
    case PointwiseOp::elu:
      return {{alg::eltwise_elu, static_cast<float>(p.elu_alpha.value_or(1.0)), 0.f}};
    case PointwiseOp::softplus:
      return softplus_steps(p);
    case PointwiseOp::exp:
      return {{alg::eltwise_exp, 0.f, 0.f}};
    case PointwiseOp::log:
      return {{alg::eltwise_log, 0.f, 0.f}};
    case PointwiseOp::sqrt:
      return {{alg::eltwise_sqrt, 0.f, 0.f}};
    case PointwiseOp::rsqrt:
      return {{alg::eltwise_pow, 1.f, -0.5f}};  // pow: alpha * x^beta
    case PointwiseOp::abs:
      return {{alg::eltwise_abs, 0.f, 0.f}};
    case PointwiseOp::neg:
      return {{alg::eltwise_linear, -1.f, 0.f}};  // linear: alpha * x + beta
    case PointwiseOp::recip:
      return {{alg::eltwise_pow, 1.f, -1.f}};
    case PointwiseOp::identity:
      return {{alg::eltwise_linear, 1.f, 0.f}};
    default:
      break;
  }
  throw Unsupported("pointwise '" + std::string(pointwise_op_name(p.op)) + "' is not a unary op");
}

std::optional<dnnl::algorithm> binary_algorithm(PointwiseOp op) {
  switch (op) {
    case PointwiseOp::add:
      return alg::binary_add;
    case PointwiseOp::sub:
      return alg::binary_sub;
    case PointwiseOp::mul:
      return alg::binary_mul;
    case PointwiseOp::div:
      return alg::binary_div;
    case PointwiseOp::max:
      return alg::binary_max;
    case PointwiseOp::min:
      return alg::binary_min;
    default:
      return std::nullopt;
  }
}

namespace {

Lowered lower_eltwise(const AnchorContext& ctx, const PointwiseParams& params) {
  const auto& x = ctx.graph.tensor(ctx.input({"in_0"}));
  const auto& y = ctx.output_tensor(ctx.output({"out_0"}));
  const auto x_md = user_md(x);
  const auto y_md = user_md(y);
  // oneDNN 2.x eltwise has one data descriptor for src and dst.
  if (x_md != y_md)
    throw Unsupported("oneDNN 2.x eltwise needs in_0 and out_0 in the same layout and data type ('" + x.name +
                      "' vs '" + y.name + "')");
  auto steps = eltwise_steps(params);
  Lowered low;
  low.primitive = "eltwise_forward";
  low.dst_dims = y.dims;
  low.args = {tensor_arg(DNNL_ARG_SRC, "src", x, false, x_md),
              tensor_arg(DNNL_ARG_DST, "dst", y, true, y_md)};
  const EltwiseStep first = steps.front();
  low.leading_post_ops.assign(steps.begin() + 1, steps.end());
  low.make_pd = [x_md, first](Layout, const dnnl::primitive_attr& attr) {
    const dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, first.alg, x_md, first.alpha,
                                           first.beta);
    return make_pd_iterator(desc, attr);
  };
  return low;
}

Lowered lower_binary(const AnchorContext& ctx, const PointwiseParams& params) {
  const auto algorithm = *binary_algorithm(params.op);
  const TensorDesc* a = &ctx.graph.tensor(ctx.input({"in_0"}));
  const TensorDesc* b = &ctx.graph.tensor(ctx.input({"in_1"}));
  const auto& y = ctx.output_tensor(ctx.output({"out_0"}));
  // oneDNN broadcasts src1 only: swap the operands of a commutative op when src0 broadcasts.
  if (a->dims != y.dims) {
    const bool commutes = algorithm == alg::binary_add || algorithm == alg::binary_mul ||
                          algorithm == alg::binary_max || algorithm == alg::binary_min;
    if (!commutes || b->dims != y.dims)
      throw Unsupported("oneDNN binary broadcasts its second input only; in_0 '" + a->name + "' broadcasts");
    std::swap(a, b);
  }
  auto b_dims = b->dims;
  auto b_strides = b->strides;
  if (b_dims.size() > y.dims.size()) throw Unsupported("in_1 has a higher rank than out_0");
  pad_to_rank(b_dims, b_strides, y.dims.size());
  const auto a_md = user_md(*a);
  const auto b_md = strided_md(b_dims, b->dtype, b_strides);
  const auto y_md = user_md(y);
  Lowered low;
  low.primitive = "binary";
  low.dst_dims = y.dims;
  low.args = {tensor_arg(DNNL_ARG_SRC_0, "src0", *a, false, a_md),
              tensor_arg(DNNL_ARG_SRC_1, "src1", *b, false, b_md),
              tensor_arg(DNNL_ARG_DST, "dst", y, true, y_md)};
  low.make_pd = [algorithm, a_md, b_md, y_md](Layout, const dnnl::primitive_attr& attr) {
    const dnnl::binary::desc desc(algorithm, a_md, b_md, y_md);
    return make_pd_iterator(desc, attr);
  };
  return low;
}

}  // namespace

Lowered lower_pointwise(const AnchorContext& ctx) {
  check_compute_type(ctx);
  const auto& params = ctx.node.as<PointwiseParams>();
  if (params.arity() == 1) return lower_eltwise(ctx, params);
  if (!binary_algorithm(params.op))
    throw Unsupported("pointwise '" + std::string(pointwise_op_name(params.op)) +
                      "' of two tensors has no oneDNN binary algorithm");
  return lower_binary(ctx, params);
}

}  // namespace dnnbench::onednn
