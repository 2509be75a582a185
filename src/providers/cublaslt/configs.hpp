#pragma once
// cuBLASLt algo configurations as plain values: what a plan is (an algo id plus the config
// attributes of its 64-byte cublasLtMatmulAlgo_t), its stable name, the engine order, and the
// plan space read from an algo's capability attributes. Pure logic: lt.cpp reads and writes the
// algo structs, this file decides; unit-tested without a GPU.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "providers/provider.hpp"

namespace dnnbench::cublaslt {

// How fp32 data is multiplied: CUBLAS_COMPUTE_32F (strict) or CUBLAS_COMPUTE_32F_FAST_TF32.
// Other data types have one compute type and use `standard`.
enum class MathMode { standard, tf32 };

// The config attributes (cublasLtMatmulAlgoConfigAttributes_t) of one algo, by value.
struct AlgoConfig {
  int algo = 0;                 // CUBLASLT_ALGO_CONFIG_ID
  std::uint32_t tile = 0;       // TILE_ID (cublasLtMatmulTile_t; 0 = undefined)
  std::uint32_t stages = 0;     // STAGES_ID (cublasLtMatmulStages_t; 0 = undefined)
  std::int32_t splitk = 1;      // SPLITK_NUM
  std::uint32_t reduction = 0;  // REDUCTION_SCHEME (cublasLtReductionScheme_t; 0 = none)
  std::uint32_t swizzle = 0;    // CTA_SWIZZLING (0 or 1)
  std::uint32_t custom = 0;     // CUSTOM_OPTION
  std::uint16_t cluster = 0;    // CLUSTER_SHAPE_ID (cublasLtClusterShape_t; 0 = auto)
  std::uint16_t inner = 0;      // INNER_SHAPE_ID (cublasLtMatmulInnerShape_t; 0 = undefined)
  bool operator==(const AlgoConfig&) const = default;
};

// What an algo says it supports (cublasLtMatmulAlgoCapAttributes_t), for its plan space.
struct AlgoCaps {
  std::vector<std::uint32_t> tiles;   // TILE_IDS (empty or {0}: the algo has no tile choice)
  std::vector<std::uint32_t> stages;  // STAGES_IDS
  bool splitk = false;                // SPLITK_SUPPORT
  std::uint32_t reduction_mask = 0;   // REDUCTION_SCHEME_MASK
  bool swizzle = false;               // CTA_SWIZZLING_SUPPORT
  std::int32_t custom_max = 0;        // CUSTOM_OPTION_MAX
  bool clusters = false;              // the device has thread-block clusters (sm_90+)
  std::uint64_t numerical_flags = 0;  // NUMERICAL_IMPL_FLAGS
};

// Engine ids: "algo<id>", with "_tf32" for CUBLAS_COMPUTE_32F_FAST_TF32 on fp32 data.
std::string engine_id(int algo, MathMode math);
struct EngineKey {
  int algo = 0;
  MathMode math = MathMode::standard;
};
std::optional<EngineKey> parse_engine_id(std::string_view id);

// Plan names: the engine id, then every config attribute, so a name identifies the config on any
// cuBLASLt version (the attribute values are the header's enum values):
// algo6_tile=20_stages=8_splitk=1_red=0_swz=0_cust=0_clu=0_inner=0
PlanSpec to_spec(const AlgoConfig& config, MathMode math);
// Throws Unsupported when the spec is not one of ours.
AlgoConfig from_spec(const PlanSpec& spec);

// Split-K factors tried when an algo supports split-K: small factors matter for skinny
// (decode-shaped) GEMMs whose m x n tiles cannot fill the SMs; beyond 32 the reduction costs more
// than the parallelism gains on any shape the sets hold.
inline constexpr int kSplitKFactors[] = {2, 3, 4, 6, 8, 12, 16, 24, 32};
// Custom options tried per algo: 0 .. min(CUSTOM_OPTION_MAX, this - 1). On the H200 some algos
// report a maximum near INT32_MAX (the loop over every value never ended: a hang in
// CublasLtProvider.MatmulRowsPass); the kernels behind the options are a handful, so the first
// 16 cover what the heuristic ever picks (its configs name options 0-3).
inline constexpr std::int32_t kMaxCustomOptions = 16;
// How many custom options an algo's plan space tries (and its capability grid counts).
std::int64_t custom_options_tried(const AlgoCaps& caps);

// Cluster shapes tried on sm_90+ (cuBLASLt has no capability attribute listing them, so these are
// ours: auto and the 1- and 2-CTA shapes, which are the ones Hopper kernels are built for;
// cublasLtMatmulAlgoCheck drops those an algo refuses).
inline constexpr std::uint16_t kClusterShapes[] = {0, 2, 3, 5, 6};  // auto, 1x1x1, 2x1x1, 1x2x1, 2x2x1

// The plan space of one engine before cublasLtMatmulAlgoCheck filters it: the heuristic's configs
// of that algo (best first), then single-attribute variations of the first of them (or of
// `base` when the heuristic gave none): split-K factor x reduction scheme, tile (with the base's
// stages, then with stages undefined), stages, CTA swizzling, custom option, cluster shape.
// No duplicates; in this order, so a bound keeps the most promising.
std::vector<AlgoConfig> candidate_configs(const AlgoConfig& base, const std::vector<AlgoConfig>& heuristic,
                                          const AlgoCaps& caps);
// How many configs the algo's full capability grid holds (tiles x stages x split-K/reduction x
// swizzle x custom x cluster), for the engine's note: what the bounded space is drawn from.
std::uint64_t capability_grid_size(const AlgoCaps& caps);

// True when cuBLASLt would run another config than the one asked for: an attribute the config
// set came back different from cublasLtMatmulAlgoCheck (attributes left undefined, 0, may be
// filled in; the reduction scheme means nothing without a K split).
bool config_differs(const AlgoConfig& want, const AlgoConfig& got);

// Engine order: the algo ids in order of their first heuristic result, then the unranked ids in
// the order cublasLtMatmulAlgoGetIds returned them.
std::vector<int> engine_order(const std::vector<int>& ids, const std::vector<int>& heuristic_algos);

}  // namespace dnnbench::cublaslt
