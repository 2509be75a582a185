#pragma once
// Shared by layernorm and rmsnorm: per-group statistics over a set of normalized axes, then
// y = (x - shift[group]) * factor[group] * scale + bias with scale and bias broadcast to x.
#include <functional>
#include <vector>

#include "reference/broadcast.hpp"
#include "reference/node_io.hpp"

namespace dnnbench::ref {

// The axes of `x_dims` to normalize as a mask; fails on an axis outside the rank.
std::vector<bool> axis_mask(const Node& node, const std::vector<std::int64_t>& x_dims,
                            const std::vector<int>& axes);

// Calls stats(group_values) for every group of the split (in parallel), where group_values
// holds the group's elements in order; returns one result per group.
std::vector<double> per_group(const Dense& x, const AxisSplit& split,
                              const std::function<double(const std::vector<double>&)>& stats);

// Writes y = (x - shift[g]) * factor[g] * scale + bias for every element of group g.
void apply_normalization(const Node& node, const Dense& x, const AxisSplit& split,
                         const std::vector<double>& shift, const std::vector<double>& factor,
                         const Dense& scale, const Dense* bias, Dense& y);

// Writes one value per group into an optional statistics output (mean, inv_variance, inv_rms).
void write_statistics(const Node& node, Dense* out, const std::vector<double>& per_group_values,
                      const char* role);

}  // namespace dnnbench::ref
