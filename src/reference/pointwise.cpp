// Pointwise ops: out_0 = f(in_0[, in_1]) with inputs broadcast numpy-style to out_0's dims.
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "reference/broadcast.hpp"
#include "reference/node_io.hpp"
#include "reference/reference.hpp"
#include "tensor/parallel.hpp"

namespace dnnbench {
namespace {

double sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

// log(1 + exp(z)) without overflow for large z.
double log1p_exp(double z) {
  return z > 0 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z));
}

// cuDNN relu with clips: x inside (lower, upper) passes; x >= upper clips to upper; x <= lower
// follows the lower slope through (lower, lower).
double clipped_relu(double x, double lower, double upper, double slope) {
  if (x <= lower) return lower + slope * (x - lower);
  if (x >= upper) return upper;
  return x;
}

struct Unary {
  PointwiseOp op;
  double lower, upper, slope, swish_beta, elu_alpha, softplus_beta;

  explicit Unary(const PointwiseParams& p)
      : op(p.op),
        lower(p.relu_lower_clip.value_or(0.0)),
        upper(p.relu_upper_clip.value_or(std::numeric_limits<double>::infinity())),
        slope(p.relu_lower_clip_slope.value_or(0.0)),
        swish_beta(p.swish_beta.value_or(1.0)),
        elu_alpha(p.elu_alpha.value_or(1.0)),
        softplus_beta(p.softplus_beta.value_or(1.0)) {}

  double operator()(double x) const {
    switch (op) {
      case PointwiseOp::relu:
        return clipped_relu(x, lower, upper, slope);
      case PointwiseOp::gelu:
        return 0.5 * x * (1.0 + std::erf(x / std::numbers::sqrt2));
      case PointwiseOp::gelu_tanh: {
        // sqrt(2/pi) and 0.044715 are the constants of the tanh approximation of GELU.
        const double sqrt_2_over_pi = std::numbers::sqrt2 / std::sqrt(std::numbers::pi);
        return 0.5 * x * (1.0 + std::tanh(sqrt_2_over_pi * (x + 0.044715 * x * x * x)));
      }
      case PointwiseOp::sigmoid:
        return sigmoid(x);
      case PointwiseOp::tanh:
        return std::tanh(x);
      case PointwiseOp::swish:
        return x * sigmoid(swish_beta * x);
      case PointwiseOp::elu:
        return x > 0 ? x : elu_alpha * std::expm1(x);
      case PointwiseOp::softplus:
        return log1p_exp(softplus_beta * x) / softplus_beta;
      case PointwiseOp::exp:
        return std::exp(x);
      case PointwiseOp::log:
        return std::log(x);
      case PointwiseOp::sqrt:
        return std::sqrt(x);
      case PointwiseOp::rsqrt:
        return 1.0 / std::sqrt(x);
      case PointwiseOp::abs:
        return std::abs(x);
      case PointwiseOp::neg:
        return -x;
      case PointwiseOp::recip:
        return 1.0 / x;
      default:
        return x;  // identity
    }
  }
};

double binary(PointwiseOp op, double a, double b) {
  switch (op) {
    case PointwiseOp::add:
      return a + b;
    case PointwiseOp::sub:
      return a - b;
    case PointwiseOp::mul:
      return a * b;
    case PointwiseOp::div:
      return a / b;
    case PointwiseOp::max:
      return std::fmax(a, b);
    case PointwiseOp::min:
      return std::fmin(a, b);
    case PointwiseOp::pow:
      return std::pow(a, b);
    default:
      return a;
  }
}

// Calls body(out_index, in0_index, in1_index) for every element, a row of the last dim at a time.
template <class Body>
void for_each_broadcast(const std::vector<std::int64_t>& out_dims, const ref::BroadcastMap& map0,
                        const ref::BroadcastMap& map1, Body body) {
  const std::int64_t inner = out_dims.empty() ? 1 : out_dims.back();
  const std::int64_t rows = inner == 0 ? 0 : product(out_dims) / inner;
  const std::int64_t step0 = map0.last_stride(), step1 = map1.last_stride();
  parallel_for(rows, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t row = begin; row < end; ++row) {
      const std::int64_t base = row * inner, i0 = map0(base), i1 = map1(base);
      for (std::int64_t j = 0; j < inner; ++j) body(base + j, i0 + j * step0, i1 + j * step1);
    }
  });
}

ref::BroadcastMap broadcast_to(const Node& node, const char* role, const Dense& in, const Dense& out) {
  if (!ref::broadcastable(in.dims, out.dims))
    ref::fail(node, std::string("input '") + role + "' does not broadcast to the output's dims");
  return ref::BroadcastMap(in.dims, out.dims);
}

}  // namespace

void reference_pointwise(const Graph& graph, const Node& node, Values& values) {
  const auto& p = ref::params<PointwiseParams>(node);
  const Dense& in0 = ref::input(graph, node, values, "in_0");
  const bool is_binary = p.arity() == 2;
  const Dense& in1 = is_binary ? ref::input(graph, node, values, "in_1") : in0;
  Dense& out = ref::output(graph, node, values, "out_0");
  const auto map0 = broadcast_to(node, "in_0", in0, out);
  const auto map1 = broadcast_to(node, "in_1", in1, out);
  const double* a = in0.data.data();
  const double* b = in1.data.data();
  double* y = out.data.data();
  if (is_binary) {
    const PointwiseOp op = p.op;
    for_each_broadcast(out.dims, map0, map1, [&](std::int64_t o, std::int64_t i0, std::int64_t i1) {
      y[o] = binary(op, a[i0], b[i1]);
    });
  } else {
    const Unary f(p);
    for_each_broadcast(out.dims, map0, map1,
                       [&](std::int64_t o, std::int64_t i0, std::int64_t) { y[o] = f(a[i0]); });
  }
}

}  // namespace dnnbench
