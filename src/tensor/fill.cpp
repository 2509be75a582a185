#include "tensor/fill.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "tensor/dtype.hpp"
#include "tensor/parallel.hpp"

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
  switch (kind) {
    case FillKind::uniform:
      return "uniform";
    case FillKind::grid:
      return "grid";
    case FillKind::normal:
      break;
  }
  return "normal";
}

std::optional<FillKind> fill_kind_from_name(std::string_view name) {
  if (name == "full") return FillKind::uniform;
  for (auto kind : {FillKind::normal, FillKind::uniform, FillKind::grid})
    if (fill_kind_name(kind) == name) return kind;
  return std::nullopt;
}

namespace {

// Normal draws are cut at this many standard deviations (a draw beyond is drawn again: 6e-5 of
// them): no input is an outlier that would overflow a narrow type's sum or exp (fp8 e4m3 holds
// 448).
constexpr double kNormalCutSigmas = 4.0;
// The normal fill's standard deviation as a share of the range's half-width: N(0, 0.5^2) for the
// ordinary [-1, 1]. Not torch.randn's 1: the switching that sets a GPU's power is the mantissa's,
// the same at any scale, while the per-dtype tolerances (tensor/compare.hpp) were set for terms of
// U(-1, 1)'s size (rms 0.58). At sigma 1 correct fp32 and fp16 outputs of long reductions failed
// them: on the H200 136 of 2,200 cuDNN rows over graphs/samples and graphs/perf, with normalized
// errors of 1e-6 (fp32) and 3e-4 (fp16), elementwise near zero.
constexpr double kNormalSigmaOfHalfWidth = 0.5;

// The values of one tensor's fill, block by block: fixed blocks of kFillBlock elements, each with
// a stream of its own drawn from the tensor's, so that the values depend on the seed, the uid and
// the index only, never on the thread count, and perf-sized inputs fill on every core.
class SeededFill {
 public:
  SeededFill(const TensorDesc& desc, FillRange range, std::uint64_t seed, FillKind kind)
      : dtype_(desc.dtype),
        range_(range),
        // Per-tensor stream: the same uid gets the same values whatever else the graph holds.
        tensor_state_(seed ^ (0xd1b54a32d192ed03ull * static_cast<std::uint64_t>(desc.uid + 1))),
        integral_(!dtype_is_floating(desc.dtype)),
        draw_(integral_ || kind == FillKind::grid ? Draw::grid
              // A constrained range (positive, away from zero) keeps uniform draws inside it.
              : kind == FillKind::normal && range.lo == -range.hi && !range.exclude_zero ? Draw::normal
                                                                                         : Draw::uniform),
        // A 1/64 grid keeps values exact in bf16 (8 significant bits) for |v| < 4.
        step_(integral_ ? 1.0 : 1.0 / 64.0),
        lo_(static_cast<std::int64_t>(std::ceil(range.lo / step_))),
        span_(static_cast<std::uint64_t>(static_cast<std::int64_t>(std::floor(range.hi / step_)) - lo_ + 1)) {
  }

  // The n values of block `block` (n = kFillBlock except in the last block).
  void block(std::int64_t block, double* out, std::int64_t n) const {
    std::uint64_t mix = tensor_state_ ^ (0xbf58476d1ce4e5b9ull * static_cast<std::uint64_t>(block + 1));
    std::uint64_t state = splitmix64(mix);
    switch (draw_) {
      case Draw::normal:
        return normal_block(state, out, n);
      case Draw::uniform:
        for (std::int64_t i = 0; i < n; ++i) {
          double v;
          do v = round_to(dtype_, range_.lo + (range_.hi - range_.lo) * unit(state));
          while (v == 0 || v < range_.lo || v > range_.hi);
          out[i] = v;
        }
        return;
      case Draw::grid:
        for (std::int64_t i = 0; i < n; ++i) {
          std::int64_t k;
          do {
            k = lo_ + static_cast<std::int64_t>(splitmix64(state) % span_);
          } while ((range_.exclude_zero || !integral_) && k == 0);  // no exact zeros in float fills
          out[i] = static_cast<double>(k) * step_;
        }
        return;
    }
  }

 private:
  enum class Draw { normal, uniform, grid };

  // 53 random bits: uniform in [0, 1) at double precision.
  static double unit(std::uint64_t& state) {
    return static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53;
  }

  // Box-Muller pairs, N(0, (range.hi / 2)^2), cut at kNormalCutSigmas and rounded to the dtype; no zeros
  // (a rounded draw of zero is drawn again, as in every float fill).
  void normal_block(std::uint64_t& state, double* out, std::int64_t n) const {
    const double sigma = kNormalSigmaOfHalfWidth * range_.hi, cut = kNormalCutSigmas * sigma;
    std::int64_t i = 0;
    while (i < n) {
      const double radius = sigma * std::sqrt(-2.0 * std::log(1.0 - unit(state)));  // 1 - u: never log(0)
      const double angle = 2.0 * 3.14159265358979323846 * unit(state);
      for (const double z : {radius * std::cos(angle), radius * std::sin(angle)}) {
        const double v = round_to(dtype_, z);
        if (i < n && v != 0 && std::abs(v) <= cut) out[i++] = v;
      }
    }
  }

  DataType dtype_;
  FillRange range_;
  std::uint64_t tensor_state_;
  bool integral_;
  Draw draw_;
  double step_;
  std::int64_t lo_;
  std::uint64_t span_;
};

std::int64_t block_count(std::int64_t elements) {
  return (elements + kFillBlock - 1) / kFillBlock;
}

}  // namespace

Dense seeded_values(const TensorDesc& desc, FillRange range, std::uint64_t seed, FillKind kind) {
  Dense out(desc.dims);
  const SeededFill fill(desc, range, seed, kind);
  const auto count = static_cast<std::int64_t>(out.data.size());
  parallel_for(block_count(count), [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t b = first; b < last; ++b)
      fill.block(b, out.data.data() + b * kFillBlock, std::min(kFillBlock, count - b * kFillBlock));
  });
  return out;
}

void fill_seeded(HostTensor& tensor, FillRange range, std::uint64_t seed, FillKind kind) {
  const auto& desc = tensor.desc();
  const SeededFill fill(desc, range, seed, kind);
  const std::int64_t count = product(desc.dims);
  const std::size_t size = dtype_size(desc.dtype);
  std::byte* bytes = tensor.data();
  // Straight into the storage, block by block through a small buffer: no logical copy of the
  // whole tensor (a Dense of doubles, 4x an fp16 tensor, zeroed page by page on one thread,
  // was most of a perf graph's input time).
  const auto fill_blocks = [&](std::int64_t first, std::int64_t last) {
    std::vector<double> values(static_cast<std::size_t>(std::min(kFillBlock, count)));
    for (std::int64_t b = first; b < last; ++b) {
      const std::int64_t begin = b * kFillBlock, n = std::min(kFillBlock, count - begin);
      fill.block(b, values.data(), n);
      for_each_element_in(desc.dims, desc.strides, begin, begin + n,
                          [&](std::int64_t linear, std::int64_t offset) {
                            store_element(desc.dtype, bytes + static_cast<std::size_t>(offset) * size,
                                          values[static_cast<std::size_t>(linear - begin)]);
                          });
    }
  };
  // Broadcast strides (0) map several elements to one storage element: in order, the last one
  // written wins, as from_dense does.
  const bool aliased = std::find(desc.strides.begin(), desc.strides.end(), 0) != desc.strides.end();
  if (aliased)
    fill_blocks(0, block_count(count));
  else
    parallel_for(block_count(count), fill_blocks);
}

}  // namespace dnnbench
