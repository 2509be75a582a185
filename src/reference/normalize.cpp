#include "reference/normalize.hpp"

#include <string>

#include "tensor/parallel.hpp"

namespace dnnbench::ref {

std::vector<bool> axis_mask(const Node& node, const std::vector<std::int64_t>& x_dims,
                            const std::vector<int>& axes) {
  std::vector<bool> mask(x_dims.size(), false);
  for (int axis : axes) {
    if (axis < 0 || static_cast<std::size_t>(axis) >= x_dims.size())
      fail(node, "normalized axis " + std::to_string(axis) + " is outside x's rank " +
                     std::to_string(x_dims.size()));
    mask[static_cast<std::size_t>(axis)] = true;
  }
  return mask;
}

std::vector<double> per_group(const Dense& x, const AxisSplit& split,
                              const std::function<double(const std::vector<double>&)>& stats) {
  std::vector<double> result(static_cast<std::size_t>(split.outer_count()));
  parallel_for(split.outer_count(), [&](std::int64_t begin, std::int64_t end) {
    std::vector<double> group(static_cast<std::size_t>(split.inner_count()));
    for (std::int64_t o = begin; o < end; ++o) {
      const double* base = x.data.data() + split.outer_offset(o);
      for (std::size_t i = 0; i < group.size(); ++i) group[i] = base[split.inner_offsets()[i]];
      result[static_cast<std::size_t>(o)] = stats(group);
    }
  });
  return result;
}

void apply_normalization(const Node& node, const Dense& x, const AxisSplit& split,
                         const std::vector<double>& shift, const std::vector<double>& factor,
                         const Dense& scale, const Dense* bias, Dense& y) {
  if (y.dims != x.dims) fail(node, "y dims differ from x dims");
  if (!broadcastable(scale.dims, x.dims)) fail(node, "scale does not broadcast to x's dims");
  if (bias && !broadcastable(bias->dims, x.dims)) fail(node, "bias does not broadcast to x's dims");
  const BroadcastMap scale_of(scale.dims, x.dims);
  const BroadcastMap bias_of(bias ? bias->dims : scale.dims, x.dims);
  parallel_for(split.outer_count(), [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t o = begin; o < end; ++o) {
      const std::int64_t base = split.outer_offset(o);
      const double s = shift[static_cast<std::size_t>(o)], f = factor[static_cast<std::size_t>(o)];
      for (const std::int64_t inner : split.inner_offsets()) {
        const std::int64_t at = base + inner;
        const double b = bias ? bias->data[static_cast<std::size_t>(bias_of(at))] : 0.0;
        y.data[static_cast<std::size_t>(at)] = (x.data[static_cast<std::size_t>(at)] - s) * f *
                                                   scale.data[static_cast<std::size_t>(scale_of(at))] +
                                               b;
      }
    }
  });
}

void write_statistics(const Node& node, Dense* out, const std::vector<double>& per_group_values,
                      const char* role) {
  if (!out) return;
  if (out->size() != static_cast<std::int64_t>(per_group_values.size()))
    fail(node, std::string("output '") + role + "' has " + std::to_string(out->size()) +
                   " elements, expected " + std::to_string(per_group_values.size()) +
                   " (one per normalized group)");
  out->data = per_group_values;
}

}  // namespace dnnbench::ref
