// Scaled dot-product attention, forward (SdpaAttributes) and backward (SdpaBackwardAttributes):
// roles, settings, shape rules and cost. The masks are defined once in sdpa_mask.hpp; the
// formulas are documented in docs/attention.md.
#include <cmath>
#include <string>

#include "graph/ops/common.hpp"
#include "graph/ops/sdpa_mask.hpp"

namespace dnnbench {

SdpaShape sdpa_shape(const Graph& graph, const Node& node) {
  SdpaShape s;
  const TensorDesc* q = optional_input(graph, node, "q");
  const TensorDesc* k = optional_input(graph, node, "k");
  const TensorDesc* v = optional_input(graph, node, "v");
  if (!q || !k || !v || q->dims.size() != 4 || k->dims.size() != 4 || v->dims.size() != 4) return s;
  s.b = q->dims[0], s.h_q = q->dims[1], s.s_q = q->dims[2], s.d_qk = q->dims[3];
  s.h_k = k->dims[1], s.s_kv = k->dims[2];
  s.h_v = v->dims[1], s.d_v = v->dims[3];
  return s;
}

namespace {

// Roles each direction binds; anything else (dropout masks, paging, fp8 scales, alibi slopes)
// is refused by name rather than ignored.
constexpr std::string_view kFwdInputs[] = {"q", "k", "v", "attn_mask", "scale", "seq_len_q", "seq_len_kv"};
constexpr std::string_view kFwdOutputs[] = {"o", "stats"};
constexpr std::string_view kBwdInputs[] = {"q",     "k",         "v",     "o",         "do",
                                           "stats", "attn_mask", "scale", "seq_len_q", "seq_len_kv"};
constexpr std::string_view kBwdOutputs[] = {"dq", "dk", "dv"};

// hipDNN's attention settings (SdpaAttributes / SdpaBackwardAttributes tables, as its tools
// write them). Informational ones (implementation, mma_core_mode, max_seq_len_kv, ...) are read
// and ignored: they choose how, not what.
constexpr std::string_view kSdpaSettings[] = {"causal_mask",         "causal_mask_bottom_right",
                                              "attn_scale_value",    "generate_stats",
                                              "dropout_probability", "left_bound",
                                              "right_bound",         "padding_mask",
                                              "alibi_mask",          "max_seq_len_kv",
                                              "max_seq_len_q",       "diagonal_alignment",
                                              "mma_core_mode",       "implementation",
                                              "is_deterministic",    "max_total_seq_len_q",
                                              "max_total_seq_len_kv"};

bool bool_setting(const nlohmann::json& settings, const Node& node, const NodeContext& where,
                  std::string_view key) {
  const auto* value = find_non_null(settings, key);
  return value && json_bool(*value, where.file, settings_path(node, where, key));
}

void parse_sdpa(const nlohmann::json& node_json, Node& node, const NodeContext& where) {
  const auto& s = node_settings(node_json, node);
  SdpaParams p;
  if (const auto* v = find_non_null(s, "attn_scale_value"))
    p.scale_value = json_number(*v, where.file, settings_path(node, where, "attn_scale_value"));
  if (const auto* v = find_non_null(s, "dropout_probability")) {
    const double dropout = json_number(*v, where.file, settings_path(node, where, "dropout_probability"));
    if (dropout != 0)
      node_error(where, settings_sub_path(node, "dropout_probability"),
                 "dropout_probability is " + v->dump() +
                     "; dnnbench runs attention without dropout (its random mask has no reference to check "
                     "against); expected 0 or null");
  }
  if (bool_setting(s, node, where, "alibi_mask"))
    node_error(where, settings_sub_path(node, "alibi_mask"),
               "alibi_mask is not supported by dnnbench's attention; expected false or null");
  const bool causal = bool_setting(s, node, where, "causal_mask");
  const bool causal_br = bool_setting(s, node, where, "causal_mask_bottom_right");
  if (causal && causal_br)
    node_error(where, settings_sub_path(node, "causal_mask_bottom_right"),
               "causal_mask and causal_mask_bottom_right are both true; expected at most one (top-left or "
               "bottom-right diagonal)");
  if (const auto* v = find_non_null(s, "diagonal_alignment")) {
    const auto path = settings_path(node, where, "diagonal_alignment");
    p.alignment = json_choice(*v, {"TOP_LEFT", "BOTTOM_RIGHT"}, where.file, path, "diagonal_alignment") == 0
                      ? DiagonalAlignment::top_left
                      : DiagonalAlignment::bottom_right;
    if ((causal && p.alignment != DiagonalAlignment::top_left) ||
        (causal_br && p.alignment != DiagonalAlignment::bottom_right))
      node_error(where, settings_sub_path(node, "diagonal_alignment"),
                 std::string("diagonal_alignment contradicts ") +
                     (causal ? "causal_mask (top-left)" : "causal_mask_bottom_right"));
  }
  if (causal_br) p.alignment = DiagonalAlignment::bottom_right;
  if (const auto* v = find_non_null(s, "left_bound")) {
    const auto bound = json_int(*v, where.file, settings_path(node, where, "left_bound"));
    // hipDNN's generators write -1 for "no left bound".
    if (bound != -1) {
      if (bound < 1)
        node_error(
            where, settings_sub_path(node, "left_bound"),
            "left_bound is " + std::to_string(bound) +
                "; expected the window length in keys (>= 1, the diagonal included), or -1/null for none");
      p.left_bound = bound;
    }
  }
  if (const auto* v = find_non_null(s, "right_bound")) {
    const auto bound = json_int(*v, where.file, settings_path(node, where, "right_bound"));
    if (bound < 0)
      node_error(where, settings_sub_path(node, "right_bound"),
                 "right_bound is " + std::to_string(bound) +
                     "; expected >= 0 (keys past the diagonal a row may see; 0 is causal) or null for none");
    p.right_bound = bound;
  }
  if (causal || causal_br) {
    if (p.right_bound && *p.right_bound != 0)
      node_error(where, settings_sub_path(node, "right_bound"),
                 "right_bound is " + std::to_string(*p.right_bound) +
                     " but a causal mask sets it to 0; expected 0 or null");
    p.right_bound = 0;
  }
  p.padding_mask = bool_setting(s, node, where, "padding_mask");
  p.generate_stats = bool_setting(s, node, where, "generate_stats");
  node.params = p;
}

void check_roles(const Node& node, const NodeContext& where, std::span<const std::string_view> inputs,
                 std::span<const std::string_view> outputs) {
  const auto check = [&](const std::vector<Port>& ports, std::span<const std::string_view> known,
                         std::string_view direction) {
    for (const auto& port : ports) {
      if (std::find(known.begin(), known.end(), port.role) != known.end()) continue;
      std::string list;
      for (auto r : known) list += (list.empty() ? "" : ", ") + std::string(r);
      node_error(where, port_path(direction, port.role),
                 std::string(direction == "inputs" ? "input" : "output") + " `" + port.role +
                     "` is not supported by dnnbench's " + node.type +
                     " (no dropout, paging, fp8 scaling or "
                     "extra statistics); expected only " +
                     list + " (others null)");
    }
  };
  check(node.inputs, inputs, "inputs");
  check(node.outputs, outputs, "outputs");
}

std::string bhsd(std::int64_t b, std::int64_t h, std::int64_t s, std::int64_t d) {
  return dims_string({b, h, s, d});
}

// Shared by both directions: q, k, v, masks, scale. Returns the shape.
SdpaShape validate_common(const Graph& graph, Node& node, const NodeContext& where) {
  const auto& p = node.as<SdpaParams>();
  const TensorDesc& q = input_tensor(graph, node, where, "q");
  const TensorDesc& k = input_tensor(graph, node, where, "k");
  const TensorDesc& v = input_tensor(graph, node, where, "v");
  check_rank(q, {4}, where, port_path("inputs", "q"), "q [batch, heads, seq_q, head_dim]");
  check_rank(k, {4}, where, port_path("inputs", "k"), "k [batch, kv_heads, seq_kv, head_dim]");
  check_rank(v, {4}, where, port_path("inputs", "v"), "v [batch, kv_heads, seq_kv, head_dim_v]");
  const SdpaShape s = sdpa_shape(graph, node);
  if (k.dims[0] != s.b || k.dims[3] != s.d_qk)
    node_error(where, port_path("inputs", "k"),
               "k \"" + k.name + "\" has dims " + dims_string(k.dims) + "; expected [" + std::to_string(s.b) +
                   ", kv_heads, seq_kv, " + std::to_string(s.d_qk) + "] (q's batch and head_dim)");
  if (v.dims[0] != s.b || v.dims[2] != s.s_kv)
    node_error(where, port_path("inputs", "v"),
               "v \"" + v.name + "\" has dims " + dims_string(v.dims) + "; expected [" + std::to_string(s.b) +
                   ", kv_heads, " + std::to_string(s.s_kv) + ", head_dim_v] (q's batch, k's seq_kv)");
  for (auto [t, role] : {std::pair{&k, "k"}, std::pair{&v, "v"}}) {
    const std::int64_t h = t->dims[1];
    if (h < 1 || s.h_q % h != 0)
      node_error(where, port_path("inputs", role),
                 std::string(role) + " \"" + t->name + "\" has " + std::to_string(h) + " heads but q has " +
                     std::to_string(s.h_q) +
                     "; expected a divisor of q's heads (grouped-query attention shares each K/V head among "
                     "h_q / h_kv query heads)");
  }
  if (q.dtype != k.dtype || q.dtype != v.dtype || !dtype_is_floating(q.dtype))
    node_error(where, port_path("inputs", "k"),
               "q, k and v have data types " + std::string(dtype_name(q.dtype)) + ", " +
                   std::string(dtype_name(k.dtype)) + ", " + std::string(dtype_name(v.dtype)) +
                   "; expected one floating type for all three");

  if (const TensorDesc* mask = optional_input(graph, node, "attn_mask"))
    if (!broadcasts_to(mask->dims, {s.b, s.h_q, s.s_q, s.s_kv}))
      node_error(where, port_path("inputs", "attn_mask"),
                 "attn_mask \"" + mask->name + "\" has dims " + dims_string(mask->dims) +
                     " which do not broadcast to the scores " + bhsd(s.b, s.h_q, s.s_q, s.s_kv));
  if (node.input("scale")) {
    check_scalar_input(graph, node, where, "scale");
    if (p.scale_value)
      node_error(where, port_path("inputs", "scale"),
                 "both attn_scale_value and a scale tensor are set; expected one of them");
  }
  const bool has_lengths = node.input("seq_len_q") || node.input("seq_len_kv");
  if (p.padding_mask) {
    for (std::string_view role : {"seq_len_q", "seq_len_kv"}) {
      const TensorDesc& t = input_tensor(graph, node, where, role);
      if (t.element_count() != s.b || dtype_is_floating(t.dtype))
        node_error(where, port_path("inputs", role),
                   std::string(role) + " \"" + t.name + "\" has dims " + dims_string(t.dims) + " and type " +
                       std::string(dtype_name(t.dtype)) + "; expected " + std::to_string(s.b) +
                       " integers, one length per batch (e.g. [" + std::to_string(s.b) + ", 1, 1, 1] int32)");
    }
  } else if (has_lengths) {
    node_error(where, port_path("inputs", node.input("seq_len_q") ? "seq_len_q" : "seq_len_kv"),
               "seq_len tensors without padding_mask (ragged offsets) are not supported; expected "
               "padding_mask true with per-batch lengths, or no seq_len tensors");
  }
  if (p.alignment == DiagonalAlignment::bottom_right && !p.padding_mask && s.s_q > s.s_kv)
    node_error(where, settings_sub_path(node, "diagonal_alignment"),
               "a bottom-right diagonal with seq_q " + std::to_string(s.s_q) + " > seq_kv " +
                   std::to_string(s.s_kv) + " masks whole query rows; expected seq_q <= seq_kv");
  return s;
}

void check_stats(const TensorDesc& stats, const SdpaShape& s, const NodeContext& where,
                 std::string_view direction) {
  check_dims_equal(stats, {s.b, s.h_q, s.s_q, 1}, where, port_path(direction, "stats"), "stats",
                   "one logsumexp per query row: [batch, heads, seq_q, 1]");
}

void validate_sdpa_fwd(const Graph& graph, Node& node, const NodeContext& where) {
  check_roles(node, where, kFwdInputs, kFwdOutputs);
  const SdpaShape s = validate_common(graph, node, where);
  check_dims_equal(output_tensor(graph, node, where, "o"), {s.b, s.h_q, s.s_q, s.d_v}, where,
                   port_path("outputs", "o"), "o", "[batch, heads, seq_q, head_dim_v]");
  auto& p = std::get<SdpaParams>(node.params);
  if (const TensorDesc* stats = optional_output(graph, node, "stats")) {
    check_stats(*stats, s, where, "outputs");
    p.generate_stats = true;
  } else if (p.generate_stats) {
    node_error(where, "outputs",
               "generate_stats is true but the node has no stats output; expected "
               "`stats_tensor_uid` bound to a " +
                   bhsd(s.b, s.h_q, s.s_q, 1) + " tensor");
  }
}

void validate_sdpa_bwd(const Graph& graph, Node& node, const NodeContext& where) {
  check_roles(node, where, kBwdInputs, kBwdOutputs);
  const SdpaShape s = validate_common(graph, node, where);
  for (std::string_view role : {"o", "do"})
    check_dims_equal(input_tensor(graph, node, where, role), {s.b, s.h_q, s.s_q, s.d_v}, where,
                     port_path("inputs", role), role, "[batch, heads, seq_q, head_dim_v]");
  check_stats(input_tensor(graph, node, where, "stats"), s, where, "inputs");
  for (auto [out, in] : {std::pair{"dq", "q"}, std::pair{"dk", "k"}, std::pair{"dv", "v"}})
    check_dims_equal(output_tensor(graph, node, where, out), input_tensor(graph, node, where, in).dims, where,
                     port_path("outputs", out), out, std::string("same as ") + in);
}

// A per-batch length known before the run: a by-value scalar (the same for every batch);
// seq_len tensors filled at run time count as the full extent (an upper bound).
std::int64_t known_length(const Graph& graph, const Node& node, std::string_view role, std::int64_t full) {
  const TensorDesc* t = optional_input(graph, node, role);
  if (!t || !t->scalar_value) return full;
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(*t->scalar_value), 0, full);
}

// Kept (row, key) pairs over every batch and query head.
double kept_pairs(const Graph& graph, const Node& node, const SdpaShape& s) {
  const auto* p = std::get_if<SdpaParams>(&node.params);
  if (!p) return 0;
  std::int64_t sq = s.s_q, skv = s.s_kv;
  if (p->padding_mask)
    sq = known_length(graph, node, "seq_len_q", s.s_q), skv = known_length(graph, node, "seq_len_kv", s.s_kv);
  return sdpa_kept_pairs(*p, sq, skv) * static_cast<double>(s.b * s.h_q);
}

// Matmul FLOPs only (2 per multiply-add), the convention of FlashAttention's and cuDNN's
// TFLOP/s figures: Q.K^T and P.V over the kept pairs; scale, masks and softmax (~5 per pair)
// are left out.
NodeCost cost_sdpa_fwd(const Graph& graph, const Node& node) {
  const SdpaShape s = sdpa_shape(graph, node);
  if (s.b == 0) return {};
  NodeCost c;
  c.flops = 2.0 * kept_pairs(graph, node, s) * static_cast<double>(s.d_qk + s.d_v);
  c.reduction_length = std::max({s.d_qk, s.s_kv, std::int64_t{1}});
  return c;
}

// Five matmuls over the kept pairs: S = Q.K^T recomputed, dP = dO.V^T, dV = P^T.dO,
// dQ = dS.K, dK = dS^T.Q; with d_qk == d_v that is 2.5x the forward.
NodeCost cost_sdpa_bwd(const Graph& graph, const Node& node) {
  const SdpaShape s = sdpa_shape(graph, node);
  if (s.b == 0) return {};
  NodeCost c;
  c.flops = 2.0 * kept_pairs(graph, node, s) * static_cast<double>(3 * s.d_qk + 2 * s.d_v);
  c.reduction_length = std::max({s.d_qk, s.d_v, s.s_q, s.s_kv});
  return c;
}

}  // namespace

const OpRules kSdpaFwdRules{"SdpaAttributes",  OpKind::sdpa_fwd, parse_sdpa,
                            validate_sdpa_fwd, cost_sdpa_fwd,    kSdpaSettings};
const OpRules kSdpaBwdRules{"SdpaBackwardAttributes", OpKind::sdpa_bwd, parse_sdpa,
                            validate_sdpa_bwd,        cost_sdpa_bwd,    kSdpaSettings};

}  // namespace dnnbench
