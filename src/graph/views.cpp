#include "graph/views.hpp"

#include <algorithm>

namespace dnnbench {

std::optional<std::vector<DimGroup>> reduction_groups(const std::vector<std::int64_t>& in_dims,
                                                      const std::vector<std::int64_t>& in_strides,
                                                      const std::vector<std::int64_t>& out_dims,
                                                      const std::vector<std::int64_t>& out_strides) {
  const std::size_t rank = in_dims.size();
  if (in_strides.size() != rank || out_dims.size() != rank || out_strides.size() != rank) return std::nullopt;
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < rank; ++k) {
    if (out_dims[k] != 1 && out_dims[k] != in_dims[k]) return std::nullopt;
    if (in_dims[k] > 1) order.push_back(k);
  }
  // Memory order of the input, slowest first; ties keep the dims' own order.
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return in_strides[a] > in_strides[b]; });
  std::vector<DimGroup> groups;
  for (const std::size_t k : order) {
    const bool reduced = out_dims[k] == 1;
    DimGroup g{in_dims[k], in_strides[k], reduced ? 0 : out_strides[k], reduced};
    if (!groups.empty()) {
      DimGroup& last = groups.back();
      // `last` is the slower run: it continues into g when its stride is g's whole span.
      const bool in_ok = last.in_stride == g.in_stride * g.extent;
      const bool out_ok = reduced || last.out_stride == g.out_stride * g.extent;
      if (last.reduced == reduced && in_ok && out_ok) {
        last.extent *= g.extent;
        last.in_stride = g.in_stride;
        last.out_stride = g.out_stride;
        continue;
      }
    }
    groups.push_back(g);
  }
  return groups;
}

std::optional<BatchDim> merged_batch(const std::vector<std::int64_t>& dims,
                                     const std::vector<std::int64_t>& strides,
                                     const std::vector<std::int64_t>& out_batch) {
  if (dims.size() > out_batch.size() || strides.size() != dims.size()) return std::nullopt;
  const std::size_t lead = out_batch.size() - dims.size();
  BatchDim merged{1, 0};
  bool broadcast_only = true;  // every dim so far reads one matrix
  // Fastest batch dim first: each slower dim must continue the run (or broadcast throughout).
  std::int64_t count = 1;
  std::optional<std::int64_t> stride;
  for (std::size_t k = out_batch.size(); k-- > 0;) {
    const std::int64_t out = out_batch[k];
    const std::int64_t d = k < lead ? 1 : dims[k - lead];
    const std::int64_t s = k < lead ? 0 : strides[k - lead];
    if (d != 1 && d != out) return std::nullopt;
    if (out == 1) continue;
    const std::int64_t eff = d == 1 ? 0 : s;  // a broadcast dim reads the same matrix again
    if (!stride) {
      stride = eff;
    } else if (eff != *stride * count) {
      return std::nullopt;
    }
    broadcast_only = broadcast_only && eff == 0;
    count *= out;
  }
  if (broadcast_only) return merged;
  merged.count = count;
  merged.stride = *stride;
  return merged;
}

}  // namespace dnnbench
