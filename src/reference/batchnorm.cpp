// Batchnorm inference: y = scale * (x - mean) * inv_variance + bias per channel (dim 1). The
// VarianceExt form takes variance and epsilon instead: inv_variance = 1 / sqrt(variance + epsilon).
#include <cmath>
#include <string>
#include <vector>

#include "reference/node_io.hpp"
#include "tensor/parallel.hpp"
#include "reference/reference.hpp"

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
