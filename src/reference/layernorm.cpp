// Layernorm: normalizes x over its last `normalized_dim_count` axes with the biased variance
// (divided by the element count), then applies scale and optional bias broadcast to x.
// Training writes the per-group mean and inv_variance when those outputs are present.
#include <cmath>
#include <numeric>

#include "graph/ops/norm_axes.hpp"
#include "reference/normalize.hpp"
#include "reference/reference.hpp"

namespace dnnbench {

void reference_layernorm(const Graph& graph, const Node& node, Values& values) {
  ref::params<LayernormParams>(node);
  const Dense& x = ref::input(graph, node, values, "x");
  const Dense& scale = ref::input(graph, node, values, "scale");
  const Dense* bias = ref::optional_input(graph, node, values, "bias");
  const double epsilon = ref::scalar_input(graph, node, values, "epsilon");
  const ref::AxisSplit split(x.dims, ref::axis_mask(node, x.dims, layernorm_normalized_axes(graph, node)));
  const double count = static_cast<double>(split.inner_count());

  // Two passes (mean, then squared deviations) keep the variance accurate for data far from zero.
  const auto mean = ref::per_group(x, split, [&](const std::vector<double>& g) {
    return std::accumulate(g.begin(), g.end(), 0.0) / count;
  });
  const auto inv_std = ref::per_group(x, split, [&](const std::vector<double>& g) {
    const double m = std::accumulate(g.begin(), g.end(), 0.0) / count;
    double squares = 0;
    for (double v : g) squares += (v - m) * (v - m);
    return 1.0 / std::sqrt(squares / count + epsilon);
  });

  Dense& y = ref::output(graph, node, values, "y");
  ref::apply_normalization(node, x, split, mean, inv_std, scale, bias, y);
  ref::write_statistics(node, ref::optional_output(graph, node, values, "mean"), mean, "mean");
  ref::write_statistics(node, ref::optional_output(graph, node, values, "inv_variance"), inv_std,
                        "inv_variance");
}

}  // namespace dnnbench
