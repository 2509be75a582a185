#include "tensor/fill.hpp"

#include <cmath>

#include "tensor/dtype.hpp"

namespace dnnbench {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

namespace {

bool consumed_as(const Graph& graph, std::int64_t uid, OpKind kind, std::string_view role) {
  for (const auto& node : graph.nodes)
    if (node.kind == kind && node.input(role) == uid) return true;
  return false;
}

bool feeds_positive_only_pointwise(const Graph& graph, std::int64_t uid) {
  for (const auto& node : graph.nodes) {
    if (node.kind != OpKind::pointwise) continue;
    const auto& p = node.as<PointwiseParams>();
    const bool positive_domain = p.op == PointwiseOp::log || p.op == PointwiseOp::sqrt ||
                                 p.op == PointwiseOp::rsqrt || p.op == PointwiseOp::pow;
    if (positive_domain && node.input("in_0") == uid) return true;
  }
  return false;
}

bool is_divisor(const Graph& graph, std::int64_t uid) {
  for (const auto& node : graph.nodes) {
    if (node.kind != OpKind::pointwise) continue;
    const auto& p = node.as<PointwiseParams>();
    if (p.op == PointwiseOp::div && node.input("in_1") == uid) return true;
    if (p.op == PointwiseOp::recip && node.input("in_0") == uid) return true;
  }
  return false;
}

// The attention node that reads `uid` as `role`, or nullptr.
const Node* attention_reading(const Graph& graph, std::int64_t uid, std::string_view role) {
  for (const auto& node : graph.nodes)
    if ((node.kind == OpKind::sdpa_fwd || node.kind == OpKind::sdpa_bwd) && node.input(role) == uid)
      return &node;
  return nullptr;
}

// Dim `axis` of the node's tensor in `role` (1 when absent).
double dim_of(const Graph& graph, const Node& node, std::string_view role, std::size_t axis) {
  const auto uid = node.input(role);
  const auto* t = uid ? graph.find_tensor(*uid) : nullptr;
  return t && t->dims.size() > axis ? static_cast<double>(t->dims[axis]) : 1.0;
}

}  // namespace

FillRange fill_range_for(const Graph& graph, std::int64_t uid) {
  const auto& desc = graph.tensor(uid);
  // Attention: per-batch lengths between 1 and the padded length; the backward's statistics
  // near log(seq_kv), the logsumexp of scores near zero, so that exp(s - stats) stays a
  // probability-sized number as it is after a real forward pass.
  if (const Node* n = attention_reading(graph, uid, "seq_len_q"))
    return {1, dim_of(graph, *n, "q", 2), false};
  if (const Node* n = attention_reading(graph, uid, "seq_len_kv"))
    return {1, dim_of(graph, *n, "k", 2), false};
  if (const Node* n = attention_reading(graph, uid, "stats"); n && n->kind == OpKind::sdpa_bwd) {
    const double center = std::log(dim_of(graph, *n, "k", 2));
    return {center - 0.5, center + 0.5, false};
  }
  if (!dtype_is_floating(desc.dtype)) {
    if (desc.dtype == DataType::u8) return {0, 15, false};
    return {-8, 8, false};  // small integers: products and sums stay exact in int32
  }
  if (consumed_as(graph, uid, OpKind::batchnorm_inference, "variance") ||
      consumed_as(graph, uid, OpKind::batchnorm_inference, "inv_variance") ||
      consumed_as(graph, uid, OpKind::batchnorm_backward, "inv_variance") ||
      consumed_as(graph, uid, OpKind::batchnorm_training, "prev_running_variance"))
    return {0.5, 2.0, true};
  if (feeds_positive_only_pointwise(graph, uid)) return {0.25, 4.0, true};
  if (is_divisor(graph, uid)) return {0.5, 2.0, true};
  return {-1.0, 1.0, false};
}

std::string_view fill_kind_name(FillKind kind) {
  return kind == FillKind::grid ? "grid" : "full";
}

Dense seeded_values(const TensorDesc& desc, FillRange range, std::uint64_t seed, FillKind kind) {
  Dense out(desc.dims);
  // Per-tensor stream: the same uid gets the same values whatever else the graph holds.
  std::uint64_t state = seed ^ (0xd1b54a32d192ed03ull * static_cast<std::uint64_t>(desc.uid + 1));
  const bool integral = !dtype_is_floating(desc.dtype);
  if (kind == FillKind::full && !integral && dtype_size(desc.dtype) >= 4) {
    for (auto& v : out.data) {
      do {
        // 53 random bits: uniform in [0, 1) at double precision, then rounded to the dtype.
        const double u = static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53;
        v = round_to(desc.dtype, range.lo + (range.hi - range.lo) * u);
      } while (v == 0 || v < range.lo || v > range.hi);
    }
    return out;
  }
  // A 1/64 grid keeps values exact in bf16 (8 significant bits) for |v| < 4.
  const double step = integral ? 1.0 : 1.0 / 64.0;
  const auto lo = static_cast<std::int64_t>(std::ceil(range.lo / step));
  const auto hi = static_cast<std::int64_t>(std::floor(range.hi / step));
  const auto span = static_cast<std::uint64_t>(hi - lo + 1);
  for (auto& v : out.data) {
    std::int64_t k;
    do {
      k = lo + static_cast<std::int64_t>(splitmix64(state) % span);
    } while ((range.exclude_zero || !integral) && k == 0);  // no exact zeros in float fills
    v = static_cast<double>(k) * step;
  }
  return out;
}

}  // namespace dnnbench
