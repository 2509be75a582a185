#pragma once
// The cuBLASLt calls: handle, the operation descriptors of one problem, algo structs from
// configs and back, cublasLtMatmulAlgoCheck, and the analysis of a problem (its engines in
// heuristic order with their capabilities and heuristic configs).
#include <cublasLt.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "providers/cublaslt/configs.hpp"
#include "providers/cublaslt/lt_library.hpp"
#include "providers/cublaslt/problem.hpp"

namespace dnnbench::cublaslt {

// The most workspace a plan may ask for (CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES). The default
// (0) forbids workspace and with it split-K; 64 MiB is twice PyTorch's cuBLAS workspace on Hopper
// (32 MiB), so no config PyTorch could run is out of reach.
inline constexpr std::size_t kMaxWorkspaceBytes = std::size_t{64} << 20;
// Heuristic results asked for: more than any problem of the sets gets back (cuBLASLt returns
// fewer when fewer configs apply), so every ranked algo is seen.
inline constexpr int kHeuristicResults = 64;

std::string status_text(cublasStatus_t status);
// Throws std::runtime_error with `what` and the status.
void check(cublasStatus_t status, std::string_view what);

class Handle {
 public:
  Handle();
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle();
  cublasLtHandle_t get() const { return handle_; }

 private:
  cublasLtHandle_t handle_ = nullptr;
};

// The matmul descriptor, the four layouts and the preference of one problem and math mode.
// Throws Unsupported when a data type has no cuBLASLt counterpart.
class Operation {
 public:
  Operation(const GemmProblem& problem, MathMode math);
  Operation(const Operation&) = delete;
  Operation& operator=(const Operation&) = delete;
  ~Operation();

  cublasLtMatmulDesc_t desc() const { return desc_; }
  cublasLtMatrixLayout_t a() const { return a_; }
  cublasLtMatrixLayout_t b() const { return b_; }
  cublasLtMatrixLayout_t c() const { return d_; }  // C is D (beta = 0, C aliases D)
  cublasLtMatrixLayout_t d() const { return d_; }
  cublasLtMatmulPreference_t preference() const { return pref_; }
  cublasComputeType_t compute() const { return compute_; }
  cudaDataType_t scale_type() const { return scale_; }
  cudaDataType_t a_type() const { return atype_; }
  cudaDataType_t b_type() const { return btype_; }
  cudaDataType_t d_type() const { return dtype_; }
  // alpha = 1 and beta = 0 in the scale type, for cublasLtMatmul's host pointers.
  const void* alpha() const { return alpha_; }
  const void* beta() const { return beta_; }
  void set_bias_pointer(const void* bias);
  std::string compute_name() const;  // "CUBLAS_COMPUTE_32F_FAST_TF32", ...

 private:
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, d_ = nullptr;
  cublasLtMatmulPreference_t pref_ = nullptr;
  cublasComputeType_t compute_{};
  cudaDataType_t scale_{}, atype_{}, btype_{}, dtype_{};
  alignas(8) unsigned char alpha_[8] = {}, beta_[8] = {};
};

// An initialized algo struct with `config`'s attributes set; throws Unsupported when cuBLASLt
// refuses the id or an attribute.
cublasLtMatmulAlgo_t make_algo(const Handle& handle, const Operation& op, const AlgoConfig& config);
AlgoConfig read_algo(const cublasLtMatmulAlgo_t& algo);

struct CheckResult {
  bool ok = false;
  std::string reason;                             // cuBLASLt's status when not ok
  cublasStatus_t status = CUBLAS_STATUS_SUCCESS;  // that status
  std::size_t workspace = 0;                      // bytes the config needs
  float waves = 0;
  AlgoConfig actual;  // the config as cublasLtMatmulAlgoCheck returned it
};
CheckResult check_algo(const Handle& handle, const Operation& op, const cublasLtMatmulAlgo_t& algo);

struct HeuristicConfig {
  AlgoConfig config;
  std::size_t workspace = 0;
  float waves = 0;
};

struct EngineEntry {
  int algo = 0;
  MathMode math = MathMode::standard;
  AlgoCaps caps;
  std::vector<HeuristicConfig> heuristic;  // this algo's heuristic results, best first
  // For an algo the heuristic did not rank: the first of its candidate configs that
  // cublasLtMatmulAlgoCheck accepts unchanged (AlgoInit's default config, with the tile left
  // undefined, is refused for most algos on the H200). Its heuristic plan and plan-space base.
  std::optional<AlgoConfig> checked_default;
  std::vector<std::string> notes;
};

std::vector<AlgoConfig> heuristic_configs(const EngineEntry& engine);
// The config an engine's heuristic plan runs and its plan space varies: the first heuristic
// config, else the checked default.
AlgoConfig base_config(const EngineEntry& engine);
// Candidates checked for an unranked algo's default before it is given up: every
// single-attribute variation of AlgoInit's default on the shapes of the sets (~100) fits.
inline constexpr std::size_t kMaxDefaultConfigChecks = 256;
// The first of algo `id`'s candidate configs that cublasLtMatmulAlgoCheck accepts unchanged
// (none: `why` says how many were tried and the first refusal), and how many checks it took.
struct CheckedDefault {
  std::optional<AlgoConfig> config;
  std::size_t checks = 0;
  std::string why;
};
CheckedDefault first_checked_config(const Handle& handle, const Operation& op, int id, const AlgoCaps& caps);

struct Analysis {
  GemmProblem problem;
  // What the analysis cost (it runs once per graph, outside any row): AlgoCheck calls spent on
  // unranked algos' defaults, and the wall time of the whole analysis.
  std::size_t default_checks = 0;
  double analysis_ms = 0;
  std::vector<EngineEntry> engines;  // heuristic order per math mode (strict before TF32)
  std::vector<std::string> refused;  // "algo<i>: <reason>"
  std::vector<std::string> heuristic_errors;
};

// fp32 inputs with fp32 compute get both math modes; every other problem one.
std::vector<MathMode> math_modes(const GemmProblem& problem);
Analysis analyze(const Handle& handle, const GemmProblem& problem);

}  // namespace dnnbench::cublaslt
