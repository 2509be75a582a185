// Batchnorm inference: y = scale * (x - mean) * inv_variance + bias per channel (dim 1). The
// VarianceExt form takes variance and epsilon instead: inv_variance = 1 / sqrt(variance + epsilon).
#include <cmath>
#include <string>
#include <vector>

#include "reference/node_io.hpp"
#include "reference/reference.hpp"
#include "tensor/parallel.hpp"

namespace dnnbench {
namespace {

// A per-channel operand: any shape holding exactly C elements ([C], [1,C,1,1], ...).
const Dense& per_channel(const Graph& graph, const Node& node, const Values& values, const char* role,
                         std::int64_t channels) {
  const Dense& d = ref::input(graph, node, values, role);
  if (d.size() != channels)
    ref::fail(node, std::string("'") + role + "' has " + std::to_string(d.size()) +
                        " elements, expected one per channel (" + std::to_string(channels) + ")");
  return d;
}

}  // namespace

void reference_batchnorm(const Graph& graph, const Node& node, Values& values) {
  const auto& p = ref::params<BatchnormParams>(node);
  const Dense& x = ref::input(graph, node, values, "x");
  if (x.rank() < 2) ref::fail(node, "x needs a channel dim (rank 2 or more)");
  const std::int64_t channels = x.dims[1];
  const Dense& mean = per_channel(graph, node, values, "mean", channels);
  const Dense& scale = per_channel(graph, node, values, "scale", channels);
  const Dense& bias = per_channel(graph, node, values, "bias", channels);
  std::vector<double> inv(static_cast<std::size_t>(channels));
  if (p.variance_ext) {
    const Dense& variance = per_channel(graph, node, values, "variance", channels);
    const double epsilon = ref::scalar_input(graph, node, values, "epsilon");
    for (std::int64_t c = 0; c < channels; ++c) inv[c] = 1.0 / std::sqrt(variance.data[c] + epsilon);
  } else {
    const Dense& inv_variance = per_channel(graph, node, values, "inv_variance", channels);
    inv = inv_variance.data;
  }
  Dense& y = ref::output(graph, node, values, "y");
  if (y.dims != x.dims) ref::fail(node, "y dims differ from x dims");
  const std::int64_t plane = product({x.dims.begin() + 2, x.dims.end()});
  parallel_for(x.dims[0] * channels, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t nc = begin; nc < end; ++nc) {
      const std::int64_t c = nc % channels;
      const double m = mean.data[c], f = scale.data[c] * inv[c], b = bias.data[c];
      const double* xs = x.data.data() + nc * plane;
      double* ys = y.data.data() + nc * plane;
      for (std::int64_t j = 0; j < plane; ++j) ys[j] = (xs[j] - m) * f + b;
    }
  });
}

}  // namespace dnnbench

namespace dnnbench {
namespace {

// x's elements of channel c: the plane of every (n, c), `plane` apart by `channels * plane`.
template <class F>
void for_channel(const Dense& x, std::int64_t c, F&& f) {
  const std::int64_t channels = x.dims[1];
  const std::int64_t plane = product({x.dims.begin() + 2, x.dims.end()});
  for (std::int64_t n = 0; n < x.dims[0]; ++n) {
    const std::int64_t base = (n * channels + c) * plane;
    for (std::int64_t j = 0; j < plane; ++j) f(base + j);
  }
}

}  // namespace

void reference_batchnorm_training(const Graph& graph, const Node& node, Values& values) {
  const Dense& x = ref::input(graph, node, values, "x");
  if (x.rank() < 2) ref::fail(node, "x needs a channel dim (rank 2 or more)");
  const std::int64_t channels = x.dims[1];
  const std::int64_t count = x.size() / channels;
  const Dense& scale = per_channel(graph, node, values, "scale", channels);
  const Dense& bias = per_channel(graph, node, values, "bias", channels);
  const double epsilon = ref::scalar_input(graph, node, values, "epsilon");
  Dense& y = ref::output(graph, node, values, "y");
  Dense* mean_out = ref::optional_output(graph, node, values, "mean");
  Dense* inv_out = ref::optional_output(graph, node, values, "inv_variance");
  Dense* next_mean = ref::optional_output(graph, node, values, "next_running_mean");
  Dense* next_var = ref::optional_output(graph, node, values, "next_running_variance");
  const Dense* prev_mean = ref::optional_input(graph, node, values, "prev_running_mean");
  const Dense* prev_var = ref::optional_input(graph, node, values, "prev_running_variance");
  if ((next_mean || next_var) && (!prev_mean || !prev_var))
    ref::fail(node, "running averages need prev_running_mean and prev_running_variance");
  const double momentum = next_mean || next_var ? ref::scalar_input(graph, node, values, "momentum") : 0.0;
  parallel_for(channels, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t c = begin; c < end; ++c) {
      double sum = 0;
      for_channel(x, c, [&](std::int64_t i) { sum += x.data[i]; });
      const double mean = sum / static_cast<double>(count);
      double squares = 0;  // two passes: no cancellation in the variance
      for_channel(x, c, [&](std::int64_t i) { squares += (x.data[i] - mean) * (x.data[i] - mean); });
      const double variance = squares / static_cast<double>(count);
      const double inv = 1.0 / std::sqrt(variance + epsilon);
      const double f = scale.data[c] * inv, b = bias.data[c];
      for_channel(x, c, [&](std::int64_t i) { y.data[i] = (x.data[i] - mean) * f + b; });
      if (mean_out) mean_out->data[c] = mean;
      if (inv_out) inv_out->data[c] = inv;
      // The running variance is the unbiased (Bessel-corrected) estimate, as cuDNN and PyTorch keep it.
      const double unbiased = count > 1 ? squares / static_cast<double>(count - 1) : variance;
      if (next_mean) next_mean->data[c] = (1 - momentum) * prev_mean->data[c] + momentum * mean;
      if (next_var) next_var->data[c] = (1 - momentum) * prev_var->data[c] + momentum * unbiased;
    }
  });
}

void reference_batchnorm_backward(const Graph& graph, const Node& node, Values& values) {
  const Dense& x = ref::input(graph, node, values, "x");
  const Dense& dy = ref::input(graph, node, values, "dy");
  if (x.rank() < 2) ref::fail(node, "x needs a channel dim (rank 2 or more)");
  if (dy.dims != x.dims) ref::fail(node, "dy dims differ from x dims");
  const std::int64_t channels = x.dims[1];
  const auto count = static_cast<double>(x.size() / channels);
  const Dense& mean = per_channel(graph, node, values, "mean", channels);
  const Dense& inv_variance = per_channel(graph, node, values, "inv_variance", channels);
  const Dense& scale = per_channel(graph, node, values, "scale", channels);
  Dense& dx = ref::output(graph, node, values, "dx");
  Dense& dscale = ref::output(graph, node, values, "dscale");
  Dense& dbias = ref::output(graph, node, values, "dbias");
  parallel_for(channels, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t c = begin; c < end; ++c) {
      const double m = mean.data[c], inv = inv_variance.data[c];
      double sum_dy = 0, sum_dy_xhat = 0;
      for_channel(x, c, [&](std::int64_t i) {
        sum_dy += dy.data[i];
        sum_dy_xhat += dy.data[i] * (x.data[i] - m) * inv;
      });
      dbias.data[c] = sum_dy;
      dscale.data[c] = sum_dy_xhat;
      // dx = scale * inv / M * (M * dy - sum(dy) - x_hat * sum(dy * x_hat)).
      const double f = scale.data[c] * inv / count;
      for_channel(x, c, [&](std::int64_t i) {
        const double xhat = (x.data[i] - m) * inv;
        dx.data[i] = f * (count * dy.data[i] - sum_dy - xhat * sum_dy_xhat);
      });
    }
  });
}

}  // namespace dnnbench
