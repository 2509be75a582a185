#include "report/peaks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string_view>

namespace dnnbench {
namespace {

using nlohmann::json;

// FLOP per SM per clock, dense (no sparsity), from NVIDIA's architecture whitepapers: e.g. the
// H100/H200 SXM's 989.4 dense fp16 tensor TFLOP/s = 132 SMs x 4096 x 1830 MHz.
struct ArchRates {
  std::string_view compute_capability;
  std::string_view name;
  double tensor_fp16, tensor_tf32, tensor_int8, tensor_fp64;  // matrix units
  double fp32, fp16, fp64;                                    // vector units (FMA = 2 FLOP)
};
constexpr std::array<ArchRates, 3> kArchitectures = {{
    {"9.0", "Hopper", 4096, 2048, 8192, 256, 256, 512, 128},
    {"8.9", "Ada", 1024, 512, 2048, 0, 256, 256, 4},
    {"8.0", "Ampere A100", 2048, 1024, 4096, 128, 128, 512, 64},
}};

// DRAM bandwidth of known devices (bytes/s, the datasheets' figure), matched by a part of the name
// cudaGetDeviceProperties reports; the first match wins, so longer names come first.
struct DeviceBandwidth {
  std::string_view name_part;
  double bytes_per_s;
};
constexpr std::array<DeviceBandwidth, 7> kBandwidths = {{
    {"H200", 4.8e12},
    {"H100 PCIe", 2.0e12},
    {"H100", 3.35e12},
    {"A100-SXM4-80GB", 2.039e12},
    {"A100 80GB PCIe", 1.935e12},
    {"A100", 1.555e12},
    {"L40S", 0.864e12},
}};

std::optional<double> number_or_numeric_text(const json& object, const char* key) {
  if (!object.is_object() || !object.contains(key)) return std::nullopt;
  const auto& v = object.at(key);
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    char* end = nullptr;
    const auto text = v.get<std::string>();
    const double parsed = std::strtod(text.c_str(), &end);
    if (end != text.c_str()) return parsed;
  }
  return std::nullopt;
}

std::string text(const json& object, const char* key) {
  return object.is_object() && object.contains(key) && object.at(key).is_string()
             ? object.at(key).get<std::string>()
             : "";
}

bool is_matrix_graph(const GraphResult& graph) {
  for (const auto& op : graph.ops)
    if (op == "matmul" || op.rfind("conv_", 0) == 0) return true;
  return false;
}

std::optional<PeakFigures> gpu_peaks(const json& device, const std::string& data_type, const RowResult& row) {
  const auto cc = text(device, "compute_capability");
  const auto it = std::find_if(kArchitectures.begin(), kArchitectures.end(),
                               [&](const ArchRates& a) { return a.compute_capability == cc; });
  const auto sms = number_or_numeric_text(device, "sm_count");
  if (it == kArchitectures.end() || !sms) return std::nullopt;
  // The clock the row actually ran at: under sustained load the H200 sits 13-27% below its boost
  // clock (shared/reference/ANCHORS.md), so scaling to the maximum would understate the share.
  std::optional<double> mhz;
  std::string clock_basis = "measured during the row";
  if (row.timing && row.timing->clocks && row.timing->clocks->sm_mhz) mhz = row.timing->clocks->sm_mhz->mean;
  if (!mhz || !(*mhz > 0)) {
    mhz = number_or_numeric_text(device, "max_sm_clock_mhz");
    clock_basis = "the maximum clock; no clock readings";
  }
  if (!mhz) return std::nullopt;
  const double per_clock = *sms * *mhz * 1e6;
  PeakFigures peak;
  peak.device = text(device, "device");
  const ArchRates& a = *it;
  auto rate = [&](double flop) { return flop > 0 ? std::optional(flop * per_clock) : std::nullopt; };
  if (data_type == "half" || data_type == "bfloat16") {
    peak.matrix_flops = rate(a.tensor_fp16);
    peak.vector_flops = rate(a.fp16);
  } else if (data_type == "float") {
    peak.matrix_flops = rate(a.tensor_tf32);  // libraries may use TF32 tensor cores for fp32 input
    peak.vector_flops = rate(a.fp32);
  } else if (data_type == "double") {
    peak.matrix_flops = rate(a.tensor_fp64);
    peak.vector_flops = rate(a.fp64);
  } else if (data_type == "int8" || data_type.rfind("fp8", 0) == 0) {
    peak.matrix_flops = rate(a.tensor_int8);
  } else {
    return std::nullopt;
  }
  for (const auto& b : kBandwidths)
    if (peak.device.find(b.name_part) != std::string::npos) {
      peak.dram_bytes_per_s = b.bytes_per_s;
      break;
    }
  peak.source =
      fmt::format("table: {} (sm_{}), {} SMs at {:.0f} MHz ({}){}", a.name, cc, *sms, *mhz, clock_basis,
                  peak.dram_bytes_per_s ? "" : "; bandwidth of this device not in the table");
  return peak;
}

// FLOP per core per cycle of the widest vector extension, assuming two FMA pipes (Intel server
// cores since Skylake-SP; AMD Zen 4 runs AVX-512 on 256-bit pipes, half of this).
std::optional<PeakFigures> cpu_peaks(const json& metadata, const std::string& data_type) {
  const auto& host = metadata.value("host", json::object());
  const auto flags_json = host.value("cpu_flags", json::array());
  const auto mhz = number_or_numeric_text(host, "cpu_mhz");
  auto cores = number_or_numeric_text(host, "logical_cores");
  if (!flags_json.is_array() || flags_json.empty() || !mhz || !cores) return std::nullopt;
  const auto has = [&](const char* flag) {
    return std::find(flags_json.begin(), flags_json.end(), flag) != flags_json.end();
  };
  // The libraries' threads: OMP_NUM_THREADS when the run set it.
  std::string threads_basis = "logical cores";
  if (const auto omp =
          number_or_numeric_text(metadata.value("environment", json::object()), "OMP_NUM_THREADS");
      omp && *omp > 0 && *omp < *cores) {
    cores = *omp;
    threads_basis = "OMP_NUM_THREADS";
  }
  const char* isa = "sse4_1";
  double fp32 = 8;  // 4 lanes x (mul + add)
  if (has("avx512f")) {
    isa = "avx512f", fp32 = 64;
  } else if (has("avx2") && has("fma")) {
    isa = "avx2+fma", fp32 = 32;
  } else if (has("avx")) {
    isa = "avx", fp32 = 16;
  }
  double vector = fp32;
  std::optional<double> matrix;
  std::string extension;
  if (data_type == "bfloat16") {
    if (has("amx_bf16")) matrix = 1024, extension = "+amx_bf16";  // AMX: 512 bf16 FMAs per cycle
    if (has("avx512_bf16")) vector = 2 * fp32, extension += "+avx512_bf16";
  } else if (data_type == "half") {
    if (has("avx512_fp16")) vector = 2 * fp32, extension = "+avx512_fp16";
  } else if (data_type == "double") {
    vector = fp32 / 2;
  } else if (data_type == "int8") {
    if (has("amx_int8")) matrix = 2048, extension = "+amx_int8";
    if (has("avx512_vnni")) vector = 4 * fp32, extension += "+avx512_vnni";
  } else if (data_type != "float") {
    return std::nullopt;
  }
  const double per_cycle = *cores * *mhz * 1e6;
  PeakFigures peak;
  peak.device = text(host, "cpu_model");
  peak.vector_flops = vector * per_cycle;
  if (matrix) peak.matrix_flops = *matrix * per_cycle;
  peak.source = fmt::format("cpu: {}{} x {:.0f} {} x {:.0f} MHz, two FMA pipes assumed; no bandwidth figure",
                            isa, extension, *cores, threads_basis, *mhz);
  return peak;
}

// `dnnbench calibrate --peaks` figures for this device and data type, recorded in the metadata as
// measured_peaks [{provider, device, data_type, flops, bytes_per_s, file}].
std::optional<PeakFigures> measured_peaks(const json& metadata, const std::string& provider,
                                          const std::string& data_type, const std::string& device) {
  const auto it = metadata.find("measured_peaks");
  if (it == metadata.end() || !it->is_array()) return std::nullopt;
  for (const auto& m : *it) {
    if (text(m, "provider") != provider || text(m, "data_type") != data_type) continue;
    // A calibration of another device (the file moved with the user's home) does not apply.
    if (!device.empty() && !text(m, "device").empty() && text(m, "device") != device) continue;
    if (!number_or_numeric_text(m, "matrix_flops") && !number_or_numeric_text(m, "vector_flops") &&
        !number_or_numeric_text(m, "bytes_per_s"))
      continue;
    PeakFigures peak;
    peak.device = text(m, "device");
    if (const auto f = number_or_numeric_text(m, "matrix_flops")) peak.matrix_flops = f;
    if (const auto f = number_or_numeric_text(m, "vector_flops")) peak.vector_flops = f;
    if (const auto b = number_or_numeric_text(m, "bytes_per_s")) peak.dram_bytes_per_s = b;
    peak.source = fmt::format("measured: dnnbench calibrate --peaks ({})", text(m, "file"));
    return peak;
  }
  return std::nullopt;
}

}  // namespace

std::optional<PeakFigures> peak_for_row(const json& metadata, const GraphResult& graph,
                                        const RowResult& row) {
  if (graph.data_type.empty() || !metadata.is_object()) return std::nullopt;
  const auto providers = metadata.value("providers", json::object());
  const auto entry = providers.is_object() ? providers.value(row.provider, json::object()) : json::object();
  const bool gpu = entry.is_object() && entry.contains("device") && entry.at("device").is_object();
  const auto device =
      gpu ? text(entry.at("device"), "device") : text(metadata.value("host", json::object()), "cpu_model");
  if (auto measured = measured_peaks(metadata, row.provider, graph.data_type, device)) return measured;
  if (entry.is_object() && entry.contains("device") && entry.at("device").contains("compute_capability"))
    return gpu_peaks(entry.at("device"), graph.data_type, row);
  if (row.gpu_kernel_stats) return std::nullopt;  // a device whose properties were not recorded
  return cpu_peaks(metadata, graph.data_type);
}

void attach_peaks(SuiteResult& suite) {
  for (auto& graph : suite.graphs)
    for (auto& row : graph.results)
      if (!row.peak && primary_stats(row)) row.peak = peak_for_row(suite.metadata, graph, row);
}

const std::optional<Stats>& primary_stats(const RowResult& row) {
  return row.gpu_kernel_stats ? row.gpu_kernel_stats : row.host_stats;
}

std::optional<double> achieved_flops(const RowResult& row) {
  const auto& s = primary_stats(row);
  if (!s || !(s->median > 0) || !(row.analytical_flops > 0)) return std::nullopt;
  return row.analytical_flops / (s->median * 1e-3);
}

std::optional<double> achieved_bytes_per_s(const RowResult& row) {
  const auto& s = primary_stats(row);
  if (!s || !(s->median > 0) || !(row.analytical_io_bytes > 0)) return std::nullopt;
  return row.analytical_io_bytes / (s->median * 1e-3);
}

PeakShare peak_share(const GraphResult& graph, const RowResult& row) {
  PeakShare share;
  if (!row.peak) return share;
  const auto& p = *row.peak;
  const bool matrix = is_matrix_graph(graph) && p.matrix_flops;
  const auto peak_flops = matrix ? p.matrix_flops : p.vector_flops;
  if (const auto f = achieved_flops(row); f && peak_flops && *peak_flops > 0) {
    share.flops = *f / *peak_flops;
    share.flops_basis = matrix ? "matrix" : "vector";
  }
  if (const auto b = achieved_bytes_per_s(row); b && p.dram_bytes_per_s && *p.dram_bytes_per_s > 0)
    share.bandwidth = *b / *p.dram_bytes_per_s;
  return share;
}

}  // namespace dnnbench
