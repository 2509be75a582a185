#include "providers/cublaslt/lt.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "tensor/dtype.hpp"

namespace dnnbench::cublaslt {

std::string status_text(cublasStatus_t status) {
  return fmt::format("{} ({})", lt().cublasLtGetStatusName(status), lt().cublasLtGetStatusString(status));
}

void check(cublasStatus_t status, std::string_view what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(fmt::format("{}: {}", what, status_text(status)));
}

Handle::Handle() {
  check(lt().cublasLtCreate(&handle_), "cublasLtCreate");
}

Handle::~Handle() {
  if (handle_) lt().cublasLtDestroy(handle_);
}

namespace {

cudaDataType_t cuda_type(DataType t) {
  switch (t) {
    case DataType::f32:
      return CUDA_R_32F;
    case DataType::f16:
      return CUDA_R_16F;
    case DataType::bf16:
      return CUDA_R_16BF;
    case DataType::f64:
      return CUDA_R_64F;
    case DataType::i8:
      return CUDA_R_8I;
    case DataType::i32:
      return CUDA_R_32I;
    // fp8 (Hopper's tensor cores take A and B as fp8, "TN" layouts only): mapped so that an fp8
    // graph reaches cuBLASLt, which says what it refuses (heuristic or AlgoCheck: the row's
    // skip reason). No scale pointers are set: the scales default to 1, as the graph has none.
    case DataType::fp8_e4m3:
      return CUDA_R_8F_E4M3;
    case DataType::fp8_e5m2:
      return CUDA_R_8F_E5M2;
    default:
      throw Unsupported(fmt::format("cuBLASLt has no {} data type", dtype_name(t)));
  }
}

template <class T>
void set_desc(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr, const T& value,
              const char* what) {
  check(lt().cublasLtMatmulDescSetAttribute(desc, attr, &value, sizeof value), what);
}

template <class T>
void set_layout(cublasLtMatrixLayout_t layout, cublasLtMatrixLayoutAttribute_t attr, const T& value) {
  check(lt().cublasLtMatrixLayoutSetAttribute(layout, attr, &value, sizeof value),
        "cublasLtMatrixLayoutSetAttribute");
}

cublasLtMatrixLayout_t make_layout(const MatrixLayout& m, cudaDataType_t type, std::int64_t batch) {
  cublasLtMatrixLayout_t layout = nullptr;
  check(lt().cublasLtMatrixLayoutCreate(&layout, type, static_cast<std::uint64_t>(m.rows),
                                        static_cast<std::uint64_t>(m.cols), m.ld),
        "cublasLtMatrixLayoutCreate");
  if (batch > 1) {
    set_layout(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, static_cast<std::int32_t>(batch));
    set_layout(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, m.batch_stride);
  }
  return layout;
}

cublasLtEpilogue_t lt_epilogue(Epilogue e) {
  switch (e) {
    case Epilogue::none:
      return CUBLASLT_EPILOGUE_DEFAULT;
    case Epilogue::bias:
      return CUBLASLT_EPILOGUE_BIAS;
    case Epilogue::relu:
      return CUBLASLT_EPILOGUE_RELU;
    case Epilogue::relu_bias:
      return CUBLASLT_EPILOGUE_RELU_BIAS;
    case Epilogue::gelu:
      return CUBLASLT_EPILOGUE_GELU;
    case Epilogue::gelu_bias:
      return CUBLASLT_EPILOGUE_GELU_BIAS;
  }
  return CUBLASLT_EPILOGUE_DEFAULT;
}

}  // namespace

Operation::Operation(const GemmProblem& p, MathMode math) {
  atype_ = cuda_type(p.a.dtype), btype_ = cuda_type(p.b.dtype), dtype_ = cuda_type(p.d.dtype);
  switch (p.compute_type) {
    case DataType::f32:
      compute_ = math == MathMode::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
      scale_ = CUDA_R_32F;
      break;
    case DataType::f16:
      compute_ = CUBLAS_COMPUTE_16F, scale_ = CUDA_R_16F;
      break;
    case DataType::f64:
      compute_ = CUBLAS_COMPUTE_64F, scale_ = CUDA_R_64F;
      break;
    case DataType::i32:
      compute_ = CUBLAS_COMPUTE_32I, scale_ = CUDA_R_32I;
      break;
    default:
      throw Unsupported(fmt::format("cuBLASLt has no {} compute type", dtype_name(p.compute_type)));
  }
  switch (scale_) {
    case CUDA_R_32F: {
      const float one = 1.0f;
      std::memcpy(alpha_, &one, sizeof one);
      break;
    }
    case CUDA_R_64F: {
      const double one = 1.0;
      std::memcpy(alpha_, &one, sizeof one);
      break;
    }
    case CUDA_R_16F: {
      const std::uint16_t one = 0x3c00;  // 1.0 in IEEE half
      std::memcpy(alpha_, &one, sizeof one);
      break;
    }
    default: {
      const std::int32_t one = 1;
      std::memcpy(alpha_, &one, sizeof one);
    }
  }  // beta_ stays all-zero bits: 0 in every scale type

  check(lt().cublasLtMatmulDescCreate(&desc_, compute_, scale_), "cublasLtMatmulDescCreate");
  const cublasOperation_t ta = p.a.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t tb = p.b.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  set_desc(desc_, CUBLASLT_MATMUL_DESC_TRANSA, ta, "set TRANSA");
  set_desc(desc_, CUBLASLT_MATMUL_DESC_TRANSB, tb, "set TRANSB");
  set_desc(desc_, CUBLASLT_MATMUL_DESC_EPILOGUE, lt_epilogue(p.epilogue), "set EPILOGUE");
  if (p.bias_uid) {
    const auto bias_type = static_cast<std::int32_t>(cuda_type(p.bias_dtype));
    set_desc(desc_, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, bias_type, "set BIAS_DATA_TYPE");
    set_desc(desc_, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, std::int64_t{0}, "set BIAS_BATCH_STRIDE");
  }
  a_ = make_layout(p.a, atype_, p.batch);
  b_ = make_layout(p.b, btype_, p.batch);
  d_ = make_layout(p.d, dtype_, p.batch);
  check(lt().cublasLtMatmulPreferenceCreate(&pref_), "cublasLtMatmulPreferenceCreate");
  const std::uint64_t ws = kMaxWorkspaceBytes;
  check(lt().cublasLtMatmulPreferenceSetAttribute(pref_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                                  sizeof ws),
        "set PREF_MAX_WORKSPACE_BYTES");
}

Operation::~Operation() {
  if (pref_) lt().cublasLtMatmulPreferenceDestroy(pref_);
  if (d_) lt().cublasLtMatrixLayoutDestroy(d_);
  if (b_) lt().cublasLtMatrixLayoutDestroy(b_);
  if (a_) lt().cublasLtMatrixLayoutDestroy(a_);
  if (desc_) lt().cublasLtMatmulDescDestroy(desc_);
}

void Operation::set_bias_pointer(const void* bias) {
  set_desc(desc_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, bias, "set BIAS_POINTER");
}

std::string Operation::compute_name() const {
  switch (compute_) {
    case CUBLAS_COMPUTE_32F:
      return "CUBLAS_COMPUTE_32F";
    case CUBLAS_COMPUTE_32F_FAST_TF32:
      return "CUBLAS_COMPUTE_32F_FAST_TF32";
    case CUBLAS_COMPUTE_16F:
      return "CUBLAS_COMPUTE_16F";
    case CUBLAS_COMPUTE_64F:
      return "CUBLAS_COMPUTE_64F";
    case CUBLAS_COMPUTE_32I:
      return "CUBLAS_COMPUTE_32I";
    default:
      return fmt::format("cublasComputeType_t {}", static_cast<int>(compute_));
  }
}

namespace {

template <class T>
void set_config(cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attr, T value,
                const char* name) {
  const auto status = lt().cublasLtMatmulAlgoConfigSetAttribute(&algo, attr, &value, sizeof value);
  if (status != CUBLAS_STATUS_SUCCESS)
    throw Unsupported(
        fmt::format("cuBLASLt refuses config attribute {}={}: {}", name, value, status_text(status)));
}

template <class T>
T get_config(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attr) {
  T value{};
  std::size_t written = 0;
  if (lt().cublasLtMatmulAlgoConfigGetAttribute(&algo, attr, &value, sizeof value, &written) !=
      CUBLAS_STATUS_SUCCESS)
    return T{};
  return value;
}

template <class T>
T get_cap(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoCapAttributes_t attr) {
  T value{};
  std::size_t written = 0;
  if (lt().cublasLtMatmulAlgoCapGetAttribute(&algo, attr, &value, sizeof value, &written) !=
      CUBLAS_STATUS_SUCCESS)
    return T{};
  return value;
}

std::vector<std::uint32_t> get_cap_ids(const cublasLtMatmulAlgo_t& algo,
                                       cublasLtMatmulAlgoCapAttributes_t attr) {
  std::size_t bytes = 0;
  if (lt().cublasLtMatmulAlgoCapGetAttribute(&algo, attr, nullptr, 0, &bytes) != CUBLAS_STATUS_SUCCESS ||
      bytes == 0)
    return {};
  std::vector<std::uint32_t> ids(bytes / sizeof(std::uint32_t));
  std::size_t written = 0;
  if (lt().cublasLtMatmulAlgoCapGetAttribute(&algo, attr, ids.data(), ids.size() * sizeof(std::uint32_t),
                                             &written) != CUBLAS_STATUS_SUCCESS)
    return {};
  ids.resize(written / sizeof(std::uint32_t));
  return ids;
}

bool device_has_clusters() {
  int device = 0, major = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return major >= 9;  // thread-block clusters: Hopper and later
}

bool init_algo(const Handle& handle, const Operation& op, int id, cublasLtMatmulAlgo_t& algo,
               std::string& why) {
  const auto status = lt().cublasLtMatmulAlgoInit(handle.get(), op.compute(), op.scale_type(), op.a_type(),
                                                  op.b_type(), op.d_type(), op.d_type(), id, &algo);
  if (status == CUBLAS_STATUS_SUCCESS) return true;
  why = "cublasLtMatmulAlgoInit: " + status_text(status);
  return false;
}

}  // namespace

cublasLtMatmulAlgo_t make_algo(const Handle& handle, const Operation& op, const AlgoConfig& c) {
  cublasLtMatmulAlgo_t algo{};
  std::string why;
  if (!init_algo(handle, op, c.algo, algo, why)) throw Unsupported(fmt::format("algo {}: {}", c.algo, why));
  // Only the attributes that differ from AlgoInit's defaults are set: an algo without clusters or
  // inner shapes may refuse even their default value being set.
  const AlgoConfig d = read_algo(algo);
  if (c.tile != d.tile) set_config(algo, CUBLASLT_ALGO_CONFIG_TILE_ID, c.tile, "tile");
  if (c.stages != d.stages) set_config(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, c.stages, "stages");
  if (c.splitk != d.splitk) set_config(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, c.splitk, "splitk");
  if (c.reduction != d.reduction) set_config(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, c.reduction, "red");
  if (c.swizzle != d.swizzle) set_config(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, c.swizzle, "swz");
  if (c.custom != d.custom) set_config(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, c.custom, "cust");
  if (c.cluster != d.cluster) set_config(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, c.cluster, "clu");
  if (c.inner != d.inner) set_config(algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, c.inner, "inner");
  return algo;
}

AlgoConfig read_algo(const cublasLtMatmulAlgo_t& algo) {
  AlgoConfig c;
  c.algo = get_config<std::int32_t>(algo, CUBLASLT_ALGO_CONFIG_ID);
  c.tile = get_config<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_TILE_ID);
  c.stages = get_config<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID);
  c.splitk = get_config<std::int32_t>(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM);
  c.reduction = get_config<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME);
  c.swizzle = get_config<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING);
  c.custom = get_config<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION);
  c.cluster = get_config<std::uint16_t>(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID);
  c.inner = get_config<std::uint16_t>(algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID);
  return c;
}

CheckResult check_algo(const Handle& handle, const Operation& op, const cublasLtMatmulAlgo_t& algo) {
  CheckResult r;
  cublasLtMatmulHeuristicResult_t result{};
  const auto status =
      lt().cublasLtMatmulAlgoCheck(handle.get(), op.desc(), op.a(), op.b(), op.c(), op.d(), &algo, &result);
  if (status != CUBLAS_STATUS_SUCCESS || result.state != CUBLAS_STATUS_SUCCESS) {
    r.status = status != CUBLAS_STATUS_SUCCESS ? status : result.state;
    r.reason = "cublasLtMatmulAlgoCheck: " + status_text(r.status);
    return r;
  }
  r.ok = true;
  r.workspace = result.workspaceSize;
  r.waves = result.wavesCount;
  r.actual = read_algo(result.algo);
  return r;
}

namespace {

// "4", or "16 of 2147483647" where the plan space tries fewer than the algo reports.
std::string custom_options_label(const AlgoCaps& caps) {
  const auto tried = custom_options_tried(caps);
  const auto reported = static_cast<std::int64_t>(caps.custom_max) + 1;
  return tried < reported ? fmt::format("{} of {}", tried, reported) : fmt::format("{}", tried);
}

}  // namespace

AlgoConfig base_config(const EngineEntry& e) {
  if (!e.heuristic.empty()) return e.heuristic.front().config;
  return e.checked_default.value_or(AlgoConfig{.algo = e.algo});
}

CheckedDefault first_checked_config(const Handle& handle, const Operation& op, int id, const AlgoCaps& caps) {
  CheckedDefault out;
  std::string first_refusal;
  for (const auto& c : candidate_configs(AlgoConfig{.algo = id}, {}, caps)) {
    if (out.checks == kMaxDefaultConfigChecks) break;
    ++out.checks;
    try {
      const CheckResult r = check_algo(handle, op, make_algo(handle, op, c));
      if (r.ok && !config_differs(c, r.actual)) {
        out.config = c;
        return out;
      }
      if (first_refusal.empty()) first_refusal = r.ok ? "cuBLASLt adjusts each config it accepts" : r.reason;
      // An algo built for another architecture: no config of it runs on this GPU.
      if (r.status == CUBLAS_STATUS_ARCH_MISMATCH) break;
    } catch (const Unsupported& e) {
      if (first_refusal.empty()) first_refusal = e.what();
    }
  }
  out.why = fmt::format("{} tried; first refusal: {}", out.checks, first_refusal);
  return out;
}

std::vector<AlgoConfig> heuristic_configs(const EngineEntry& e) {
  std::vector<AlgoConfig> out;
  for (const auto& h : e.heuristic) out.push_back(h.config);
  return out;
}

std::vector<MathMode> math_modes(const GemmProblem& p) {
  if (p.compute_type == DataType::f32 && (p.a.dtype == DataType::f32 || p.b.dtype == DataType::f32))
    return {MathMode::standard, MathMode::tf32};
  return {MathMode::standard};
}

Analysis analyze(const Handle& handle, const GemmProblem& problem) {
  const auto start = std::chrono::steady_clock::now();
  Analysis an;
  an.problem = problem;
  const bool clusters = device_has_clusters();
  for (const MathMode math : math_modes(problem)) {
    const Operation op(problem, math);
    const char* mode_tag = math == MathMode::tf32 ? " (TF32)" : "";

    std::vector<int> ids(256);
    int id_count = 0;
    const auto ids_status = lt().cublasLtMatmulAlgoGetIds(
        handle.get(), op.compute(), op.scale_type(), op.a_type(), op.b_type(), op.d_type(), op.d_type(),
        static_cast<int>(ids.size()), ids.data(), &id_count);
    if (ids_status != CUBLAS_STATUS_SUCCESS) {
      an.heuristic_errors.push_back(
          fmt::format("cublasLtMatmulAlgoGetIds{}: {}", mode_tag, status_text(ids_status)));
      continue;
    }
    ids.resize(static_cast<std::size_t>(std::max(id_count, 0)));

    std::vector<cublasLtMatmulHeuristicResult_t> results(kHeuristicResults);
    int returned = 0;
    const auto heur_status =
        lt().cublasLtMatmulAlgoGetHeuristic(handle.get(), op.desc(), op.a(), op.b(), op.c(), op.d(),
                                            op.preference(), kHeuristicResults, results.data(), &returned);
    if (heur_status != CUBLAS_STATUS_SUCCESS) {
      an.heuristic_errors.push_back(
          fmt::format("cublasLtMatmulAlgoGetHeuristic{}: {}", mode_tag, status_text(heur_status)));
      returned = 0;
    } else if (returned == 0) {
      an.heuristic_errors.push_back(
          fmt::format("cublasLtMatmulAlgoGetHeuristic{} returned no config", mode_tag));
    }
    results.resize(static_cast<std::size_t>(std::max(returned, 0)));

    std::vector<int> ranked;
    std::vector<HeuristicConfig> configs;
    for (const auto& r : results) {
      if (r.state != CUBLAS_STATUS_SUCCESS) continue;
      HeuristicConfig h{read_algo(r.algo), r.workspaceSize, r.wavesCount};
      ranked.push_back(h.config.algo);
      configs.push_back(h);
    }
    for (int id : engine_order(ids, ranked)) {
      cublasLtMatmulAlgo_t algo{};
      std::string why;
      if (!init_algo(handle, op, id, algo, why)) {
        an.refused.push_back(fmt::format("{}: {}", engine_id(id, math), why));
        continue;
      }
      EngineEntry e;
      e.algo = id;
      e.math = math;
      e.caps.tiles = get_cap_ids(algo, CUBLASLT_ALGO_CAP_TILE_IDS);
      e.caps.stages = get_cap_ids(algo, CUBLASLT_ALGO_CAP_STAGES_IDS);
      e.caps.splitk = get_cap<std::int32_t>(algo, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT) != 0;
      e.caps.reduction_mask = get_cap<std::uint32_t>(algo, CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK);
      e.caps.swizzle = get_cap<std::uint32_t>(algo, CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT) != 0;
      e.caps.custom_max = get_cap<std::int32_t>(algo, CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX);
      e.caps.clusters = clusters;
      e.caps.numerical_flags = get_cap<std::uint64_t>(algo, CUBLASLT_ALGO_CAP_NUMERICAL_IMPL_FLAGS);
      const auto epilogues = get_cap<std::uint32_t>(algo, CUBLASLT_ALGO_CAP_EPILOGUE_MASK);
      const auto wanted = static_cast<std::uint32_t>(lt_epilogue(problem.epilogue));
      if (problem.epilogue != Epilogue::none && (epilogues & wanted) != wanted) {
        an.refused.push_back(fmt::format("{}: its epilogue mask 0x{:x} lacks {} (0x{:x})",
                                         engine_id(id, math), epilogues, epilogue_name(problem.epilogue),
                                         wanted));
        continue;
      }
      if (problem.batch > 1 && get_cap<std::int32_t>(algo, CUBLASLT_ALGO_CAP_STRIDED_BATCH_SUPPORT) == 0) {
        an.refused.push_back(fmt::format("{}: no strided batch support", engine_id(id, math)));
        continue;
      }
      for (const auto& h : configs)
        if (h.config.algo == id) e.heuristic.push_back(h);
      std::size_t default_checks = 0;
      if (e.heuristic.empty()) {
        const CheckedDefault d = first_checked_config(handle, op, id, e.caps);
        an.default_checks += d.checks;
        default_checks = d.checks;
        e.checked_default = d.config;
        if (!e.checked_default) {
          an.refused.push_back(
              fmt::format("{}: unranked by the heuristic, and none of its candidate configs "
                          "passes cublasLtMatmulAlgoCheck({})",
                          engine_id(id, math), d.why));
          continue;
        }
      }
      const auto candidates = candidate_configs(base_config(e), heuristic_configs(e), e.caps).size();
      e.notes.push_back(fmt::format("compute {}", op.compute_name()));
      e.notes.push_back(fmt::format("heuristic configs: {}", e.heuristic.size()));
      if (e.checked_default)
        e.notes.push_back(
            fmt::format("default config: the first candidate cublasLtMatmulAlgoCheck accepts "
                        "(check {}), {}",
                        default_checks, to_spec(*e.checked_default, math).name()));
      e.notes.push_back(
          fmt::format("plan space: {} candidates: heuristic configs and single-attribute variations (of a "
                      "{}-config capability grid: {} tiles, {} stages, "
                      "split-K {}, reduction mask 0x{:x}, swizzle {}, custom options {}, cluster shapes {}); "
                      "cublasLtMatmulAlgoCheck drops those it refuses",
                      candidates, capability_grid_size(e.caps), e.caps.tiles.size(), e.caps.stages.size(),
                      e.caps.splitk ? "yes" : "no", e.caps.reduction_mask, e.caps.swizzle ? "yes" : "no",
                      custom_options_label(e.caps), e.caps.clusters ? std::size(kClusterShapes) : 0));
      e.notes.push_back(fmt::format("numerical implementation flags 0x{:x}", e.caps.numerical_flags));
      an.engines.push_back(std::move(e));
    }
  }
  an.analysis_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  // Every engine says what listing them cost: it is paid once per graph, outside any row.
  for (auto& e : an.engines)
    e.notes.push_back(
        fmt::format("analysis of the problem: {:.1f} ms, {} AlgoCheck calls on unranked "
                    "algos' defaults",
                    an.analysis_ms, an.default_checks));
  return an;
}

}  // namespace dnnbench::cublaslt
