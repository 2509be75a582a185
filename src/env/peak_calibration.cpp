#include "env/peak_calibration.hpp"

#include <fmt/format.h>

#include <fstream>
#include <limits>

#include "graph/cost.hpp"
#include "graph/reader.hpp"
#include "graph/validate.hpp"
#include "providers/registry.hpp"
#include "session/graph_data.hpp"
#include "session/plan_session.hpp"

namespace dnnbench {
namespace {

using nlohmann::json;

json tensor(int uid, const char* name, std::vector<std::int64_t> dims, const char* type) {
  std::vector<std::int64_t> strides(dims.size(), 1);
  for (std::size_t i = dims.size() - 1; i > 0; --i) strides[i - 1] = strides[i] * dims[i];
  return {{"uid", uid},         {"name", name},      {"dims", dims},
          {"strides", strides}, {"data_type", type}, {"virtual", false}};
}

Graph parsed(const json& graph) {
  auto g = parse_graph_json(graph.dump(), "<calibrate --peaks: " + graph["name"].get<std::string>() + ">");
  validate_graph(g);
  return g;
}

// Square matmul: large enough that every engine runs at its steady rate (8192^3 on a GPU: 1.1
// TFLOP, ~1.5 ms at fp16 tensor rates; 1024^3 on a CPU: 2 GFLOP).
Graph matmul_graph(std::int64_t n, const char* type) {
  return parsed({{"name", fmt::format("peak_matmul_{}_{}", n, type)},
                 {"io_data_type", type},
                 {"compute_data_type", "float"},
                 {"intermediate_data_type", "float"},
                 {"tensors",
                  {tensor(1, "a", {n, n}, type), tensor(2, "b", {n, n}, type), tensor(3, "c", {n, n}, type)}},
                 {"nodes",
                  {{{"name", "matmul"},
                    {"type", "MatmulAttributes"},
                    {"compute_data_type", "float"},
                    {"inputs", {{"a_tensor_uid", 1}, {"b_tensor_uid", 2}}},
                    {"outputs", {{"c_tensor_uid", 3}}}}}}});
}

// c = a + b over `elements` floats: three streams far beyond the last-level cache (GPU: 64 Mi
// elements, 768 MiB against a 50 MiB L2; CPU: 8 Mi, 96 MiB).
Graph add_graph(std::int64_t elements) {
  const char* type = "float";
  return parsed({{"name", fmt::format("peak_add_{}", elements)},
                 {"io_data_type", type},
                 {"compute_data_type", "float"},
                 {"intermediate_data_type", "float"},
                 {"tensors",
                  {tensor(1, "a", {elements}, type), tensor(2, "b", {elements}, type),
                   tensor(3, "c", {elements}, type)}},
                 {"nodes",
                  {{{"name", "add"},
                    {"type", "PointwiseAttributes"},
                    {"compute_data_type", "float"},
                    {"inputs", {{"operation", "add"}, {"in_0_tensor_uid", 1}, {"in_1_tensor_uid", 2}}},
                    {"outputs", {{"out_0_tensor_uid", 3}}}}}}});
}

// The fastest median (ms) over the provider's engines, with the engine's id; nullopt when none ran.
std::optional<std::pair<double, std::string>> fastest(const Graph& graph, Provider& provider, Stream& stream,
                                                      const RunOptions& options) {
  GraphData data(graph, options.seed);
  std::optional<std::pair<double, std::string>> best;
  for (const auto& engine : provider.engines(graph)) {
    try {
      PlanSession session(data, provider, stream, provider.heuristic_plan(graph, engine));
      session.set_measure_options(options.measure);
      session.warm_up_until_steady(options.warmup);
      auto rule = make_stopping_rule(options);
      const double median = session.measure(*rule, false).primary().median;
      if (median > 0 && (!best || median < best->first)) best = std::pair(median, engine.id);
    } catch (const std::exception&) {
      // An engine that cannot run this graph sets no peak.
    }
  }
  return best;
}

}  // namespace

std::vector<MeasuredPeak> measure_peaks(const std::vector<std::string>& providers,
                                        const RunOptions& options) {
  std::vector<MeasuredPeak> out;
  for (const auto& name : providers) {
    auto provider = make_provider(name);
    if (!provider || !provider->unusable_reason().empty()) continue;
    const bool gpu = provider->device() != DeviceKind::host;
    std::string device;
    for (const auto& [key, value] : provider->device_properties())
      if (key == "device") device = value;
    auto stream = provider->make_stream();
    const auto bandwidth = [&]() -> std::optional<std::pair<double, std::string>> {
      try {
        const auto g = add_graph(gpu ? (64ll << 20) : (8ll << 20));
        if (auto f = fastest(g, *provider, *stream, options))
          return std::pair(graph_cost(g).min_bytes / (f->first * 1e-3), f->second);
      } catch (const std::exception&) {
      }
      return std::nullopt;
    }();
    for (const char* type :
         gpu ? std::vector<const char*>{"half", "float"} : std::vector<const char*>{"float"}) {
      MeasuredPeak p;
      p.provider = name;
      p.device = device;
      p.data_type = type;
      if (bandwidth) {
        p.bytes_per_s = bandwidth->first;
        p.bandwidth_engine = bandwidth->second;
      }
      try {
        const auto g = matmul_graph(gpu ? 8192 : 1024, type);
        if (const auto f = fastest(g, *provider, *stream, options)) {
          const double flops = graph_cost(g).flops / (f->first * 1e-3);
          (gpu ? p.matrix_flops : p.vector_flops) = flops;
          p.flops_engine = f->second;
        } else {
          p.error = "no engine ran the matmul";
        }
      } catch (const std::exception& e) {
        p.error = e.what();
      }
      out.push_back(std::move(p));
    }
  }
  return out;
}

json measured_peaks_to_json(const std::vector<MeasuredPeak>& peaks) {
  json out = json::array();
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  for (const auto& p : peaks)
    out.push_back({{"provider", p.provider},
                   {"device", p.device},
                   {"data_type", p.data_type},
                   {"matrix_flops", opt(p.matrix_flops)},
                   {"vector_flops", opt(p.vector_flops)},
                   {"bytes_per_s", opt(p.bytes_per_s)},
                   {"flops_engine", p.flops_engine},
                   {"bandwidth_engine", p.bandwidth_engine},
                   {"error", p.error ? json(*p.error) : json(nullptr)}});
  return out;
}

json load_measured_peaks(const std::string& path) {
  std::ifstream in(path);
  if (!in) return nullptr;
  try {
    auto j = json::parse(in);
    if (!j.is_object() || !j.contains("peaks") || !j["peaks"].is_array() || j["peaks"].empty())
      return nullptr;
    for (auto& p : j["peaks"]) p["file"] = path;
    return j["peaks"];
  } catch (const std::exception&) {
    return nullptr;  // a stale or foreign file is no reason to fail a run
  }
}

}  // namespace dnnbench
