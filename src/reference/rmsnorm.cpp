// RMSNorm: y = x * inv_rms * scale (+ bias), inv_rms = 1 / sqrt(mean(x^2) + epsilon) over the
// normalized axes (graph/ops/norm_axes.hpp decides them, so validation and reference agree).
#include <cmath>

#include "graph/ops/norm_axes.hpp"
#include "reference/normalize.hpp"
#include "reference/reference.hpp"

namespace dnnbench {

void reference_rmsnorm(const Graph& graph, const Node& node, Values& values) {
  ref::params<RmsnormParams>(node);
  const Dense& x = ref::input(graph, node, values, "x");
  const Dense& scale = ref::input(graph, node, values, "scale");
  const Dense* bias = ref::optional_input(graph, node, values, "bias");
  const double epsilon = ref::scalar_input(graph, node, values, "epsilon");
  const ref::AxisSplit split(x.dims, ref::axis_mask(node, x.dims, rmsnorm_normalized_axes(graph, node)));
  const double count = static_cast<double>(split.inner_count());

  const auto inv_rms = ref::per_group(x, split, [&](const std::vector<double>& g) {
    double squares = 0;
    for (double v : g) squares += v * v;
    return 1.0 / std::sqrt(squares / count + epsilon);
  });
  const std::vector<double> no_shift(inv_rms.size(), 0.0);

  Dense& y = ref::output(graph, node, values, "y");
  ref::apply_normalization(node, x, split, no_shift, inv_rms, scale, bias, y);
  ref::write_statistics(node, ref::optional_output(graph, node, values, "inv_rms"), inv_rms, "inv_rms");
}

}  // namespace dnnbench
