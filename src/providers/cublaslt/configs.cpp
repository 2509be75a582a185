#include "providers/cublaslt/configs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace dnnbench::cublaslt {

namespace {

constexpr std::string_view kTf32Suffix = "_tf32";
// cublasLtReductionScheme_t's bits: INPLACE, COMPUTE_TYPE, OUTPUT_TYPE.
constexpr std::uint32_t kReductionSchemes[] = {1, 2, 4};

template <class T>
bool parse_number(std::string_view text, T& out) {
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end;
}

}  // namespace

std::string engine_id(int algo, MathMode math) {
  return fmt::format("algo{}{}", algo, math == MathMode::tf32 ? kTf32Suffix : "");
}

std::optional<EngineKey> parse_engine_id(std::string_view id) {
  if (!id.starts_with("algo")) return std::nullopt;
  id.remove_prefix(4);
  EngineKey key;
  if (id.ends_with(kTf32Suffix)) {
    key.math = MathMode::tf32;
    id.remove_suffix(kTf32Suffix.size());
  }
  if (id.empty() || !parse_number(id, key.algo) || key.algo < 0) return std::nullopt;
  return key;
}

PlanSpec to_spec(const AlgoConfig& c, MathMode math) {
  PlanSpec spec;
  spec.engine_id = engine_id(c.algo, math);
  spec.knobs = {{"tile", std::to_string(c.tile)},     {"stages", std::to_string(c.stages)},
                {"splitk", std::to_string(c.splitk)}, {"red", std::to_string(c.reduction)},
                {"swz", std::to_string(c.swizzle)},   {"cust", std::to_string(c.custom)},
                {"clu", std::to_string(c.cluster)},   {"inner", std::to_string(c.inner)}};
  return spec;
}

AlgoConfig from_spec(const PlanSpec& spec) {
  const auto key = parse_engine_id(spec.engine_id);
  if (!key) throw Unsupported("'" + spec.engine_id + "' is not a cuBLASLt engine id (algo<id>[_tf32])");
  AlgoConfig c;
  c.algo = key->algo;
  for (const auto& k : spec.knobs) {
    bool ok = false;
    if (k.name == "tile")
      ok = parse_number(k.value, c.tile);
    else if (k.name == "stages")
      ok = parse_number(k.value, c.stages);
    else if (k.name == "splitk")
      ok = parse_number(k.value, c.splitk);
    else if (k.name == "red")
      ok = parse_number(k.value, c.reduction);
    else if (k.name == "swz")
      ok = parse_number(k.value, c.swizzle);
    else if (k.name == "cust")
      ok = parse_number(k.value, c.custom);
    else if (k.name == "clu")
      ok = parse_number(k.value, c.cluster);
    else if (k.name == "inner")
      ok = parse_number(k.value, c.inner);
    if (!ok)
      throw Unsupported(
          fmt::format("plan '{}': knob {}={} is not a cuBLASLt config attribute "
                      "(tile, stages, splitk, red, swz, cust, clu, inner with integer values)",
                      spec.name(), k.name, k.value));
  }
  return c;
}

bool config_differs(const AlgoConfig& want, const AlgoConfig& got) {
  const auto set_and_differs = [](auto w, auto g) { return w != 0 && w != g; };
  const bool reduction_differs = want.splitk > 1 && want.reduction != got.reduction;
  return want.algo != got.algo || set_and_differs(want.tile, got.tile) ||
         set_and_differs(want.stages, got.stages) || want.splitk != got.splitk || reduction_differs ||
         want.swizzle != got.swizzle || want.custom != got.custom ||
         set_and_differs(want.cluster, got.cluster) || set_and_differs(want.inner, got.inner);
}

std::vector<AlgoConfig> candidate_configs(const AlgoConfig& base_in, const std::vector<AlgoConfig>& heuristic,
                                          const AlgoCaps& caps) {
  std::vector<AlgoConfig> out;
  const auto add = [&out](const AlgoConfig& c) {
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  };
  for (const auto& c : heuristic) add(c);
  const AlgoConfig base = heuristic.empty() ? base_in : heuristic.front();
  add(base);

  if (caps.splitk) {
    AlgoConfig c = base;
    c.splitk = 1, c.reduction = 0;
    add(c);
    for (int f : kSplitKFactors)
      for (auto scheme : kReductionSchemes) {
        if (!(caps.reduction_mask & scheme)) continue;
        c.splitk = f, c.reduction = scheme;
        add(c);
      }
  }
  for (auto tile : caps.tiles) {
    if (tile == 0) continue;
    AlgoConfig c = base;
    c.tile = tile;
    add(c);
    c.stages = 0;
    add(c);
  }
  for (auto stages : caps.stages) {
    if (stages == 0) continue;
    AlgoConfig c = base;
    c.stages = stages;
    add(c);
  }
  if (caps.swizzle) {
    AlgoConfig c = base;
    c.swizzle = base.swizzle ? 0 : 1;
    add(c);
  }
  for (std::int64_t v = 0; v < custom_options_tried(caps); ++v) {
    AlgoConfig c = base;
    c.custom = static_cast<std::uint32_t>(v);
    add(c);
  }
  if (caps.clusters)
    for (auto shape : kClusterShapes) {
      AlgoConfig c = base;
      c.cluster = shape;
      add(c);
    }
  return out;
}

std::int64_t custom_options_tried(const AlgoCaps& caps) {
  const std::int64_t reported = std::max<std::int64_t>(caps.custom_max, 0) + 1;  // 0 .. max
  return std::min<std::int64_t>(reported, kMaxCustomOptions);
}

std::uint64_t capability_grid_size(const AlgoCaps& caps) {
  const auto count_nonzero = [](const std::vector<std::uint32_t>& v) {
    const auto n =
        static_cast<std::uint64_t>(std::count_if(v.begin(), v.end(), [](auto x) { return x != 0; }));
    return std::max<std::uint64_t>(n, 1);
  };
  std::uint64_t splits = 1;
  if (caps.splitk) {
    std::uint64_t schemes = 0;
    for (auto s : kReductionSchemes) schemes += (caps.reduction_mask & s) ? 1 : 0;
    splits += std::size(kSplitKFactors) * std::max<std::uint64_t>(schemes, 1);
  }
  return count_nonzero(caps.tiles) * count_nonzero(caps.stages) * splits * (caps.swizzle ? 2 : 1) *
         static_cast<std::uint64_t>(custom_options_tried(caps)) *
         (caps.clusters ? std::size(kClusterShapes) : 1);
}

std::vector<int> engine_order(const std::vector<int>& ids, const std::vector<int>& heuristic_algos) {
  std::vector<int> out;
  // A ranked algo missing from the id list is kept: the heuristic's pick is the OOTB row.
  for (int id : heuristic_algos)
    if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
  for (int id : ids)
    if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
  return out;
}

}  // namespace dnnbench::cublaslt
