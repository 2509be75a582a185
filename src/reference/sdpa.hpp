#pragma once
// What both attention references (CPU here, CUDA in reference/cuda/) read from a node besides
// q, k, v: the scale, each batch's actual lengths and the additive mask, resolved once.
#include <cstdint>
#include <optional>
#include <vector>

#include "graph/ops/sdpa_mask.hpp"
#include "reference/broadcast.hpp"
#include "reference/reference.hpp"

namespace dnnbench::ref {

struct SdpaProblem {
  SdpaShape shape;
  SdpaParams params;
  double scale = 1;
  std::vector<std::int64_t> seq_q, seq_kv;  // per batch: seq_len values under padding, else the dims
  const Dense* bias = nullptr;              // attn_mask, added to the scaled scores
  bool bias_is_keep_mask = false;           // a boolean attn_mask: keep where true, else -inf
  std::optional<BroadcastMap> bias_of;      // [b, h_q, s_q, s_kv] index -> bias index
};

SdpaProblem sdpa_problem(const Graph& graph, const Node& node, const Values& values);

}  // namespace dnnbench::ref
