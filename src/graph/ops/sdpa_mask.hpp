#pragma once
// Attention geometry and masks, shared by the cost model, the references (CPU and CUDA) and the
// providers, so that every part keeps the same (query row, key column) pairs.
#include <algorithm>
#include <cstdint>

#include "graph/graph.hpp"

namespace dnnbench {

// q [b, h_q, s_q, d_qk], k [b, h_k, s_kv, d_qk], v [b, h_v, s_kv, d_v], o [b, h_q, s_q, d_v].
struct SdpaShape {
  std::int64_t b = 0, h_q = 0, h_k = 0, h_v = 0, s_q = 0, s_kv = 0, d_qk = 0, d_v = 0;
};
// From the node's q, k and v (dims as the graph has them; validation checked them).
SdpaShape sdpa_shape(const Graph& graph, const Node& node);

// The keys row `i` attends to: [begin, end), empty when begin >= end. `sq` and `skv` are the
// batch's actual lengths (its seq_len values under a padding mask, else the dims).
struct KeyRange {
  std::int64_t begin = 0, end = 0;
  std::int64_t size() const { return end > begin ? end - begin : 0; }
};
inline KeyRange sdpa_key_range(const SdpaParams& p, std::int64_t i, std::int64_t sq, std::int64_t skv) {
  if (i >= sq) return {0, 0};
  const std::int64_t shift = p.alignment == DiagonalAlignment::bottom_right ? skv - sq : 0;
  KeyRange r{0, skv};
  if (p.right_bound) r.end = std::min(r.end, i + shift + *p.right_bound + 1);
  if (p.left_bound) r.begin = std::max<std::int64_t>(r.begin, i + shift - *p.left_bound + 1);
  r.begin = std::max<std::int64_t>(r.begin, 0);
  return r;
}

// (query row, key) pairs kept for one head of one batch with actual lengths sq, skv.
inline double sdpa_kept_pairs(const SdpaParams& p, std::int64_t sq, std::int64_t skv) {
  double pairs = 0;
  for (std::int64_t i = 0; i < sq; ++i) pairs += static_cast<double>(sdpa_key_range(p, i, sq, skv).size());
  return pairs;
}

}  // namespace dnnbench
