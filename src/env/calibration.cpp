#include "env/calibration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "env/gpu_clocks.hpp"
#include "env/metadata.hpp"
#include "graph/reader.hpp"
#include "graph/validate.hpp"
#include "providers/registry.hpp"
#include "session/graph_data.hpp"
#include "session/plan_session.hpp"
#include "sys/cache_folder.hpp"

namespace dnnbench {
namespace {

struct ConvShape {
  std::int64_t n, c, k, hw;
  const char* dtype;  // hipDNN data type name
};

// A forward 3x3, pad 1, stride 1 convolution in NHWC (the layout the fast engines prefer).
Graph conv_graph(const std::string& name, const ConvShape& s) {
  using nlohmann::json;
  auto nhwc = [](std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w) {
    return json{{"dims", {n, c, h, w}}, {"strides", {h * w * c, 1, w * c, c}}};
  };
  auto tensor = [&](int uid, const char* tname, json layout) {
    layout["uid"] = uid;
    layout["name"] = tname;
    layout["data_type"] = s.dtype;
    layout["virtual"] = false;
    return layout;
  };
  json graph = {{"name", name},
                {"io_data_type", s.dtype},
                {"compute_data_type", "float"},
                {"intermediate_data_type", "float"},
                {"tensors",
                 {tensor(1, "x", nhwc(s.n, s.c, s.hw, s.hw)), tensor(2, "w", nhwc(s.k, s.c, 3, 3)),
                  tensor(3, "y", nhwc(s.n, s.k, s.hw, s.hw))}},
                {"nodes",
                 {{{"name", "conv"},
                   {"type", "ConvolutionFwdAttributes"},
                   {"compute_data_type", "float"},
                   {"inputs", {{"x_tensor_uid", 1}, {"w_tensor_uid", 2}}},
                   {"outputs", {{"y_tensor_uid", 3}}},
                   {"parameters",
                    {{"conv_mode", "CROSS_CORRELATION"},
                     {"pre_padding", {1, 1}},
                     {"post_padding", {1, 1}},
                     {"stride", {1, 1}},
                     {"dilation", {1, 1}}}}}}}};
  auto parsed = parse_graph_json(graph.dump(), "<calibrate: " + name + ">");
  validate_graph(parsed);
  return parsed;
}

double median_primary(const Measurement& m) {
  return m.primary().median;
}

CalibrationEntry calibrate_one(GraphData& data, Provider& provider, Stream& stream, const RunOptions& options,
                               std::int64_t repeats) {
  CalibrationEntry entry;
  entry.graph = data.graph().name;
  entry.provider = provider.name();
  try {
    const auto engines = provider.engines(data.graph());
    if (engines.empty()) throw Unsupported("the provider offers no engine for this graph");
    entry.engine = engines.front().id;
    const auto spec = provider.heuristic_plan(data.graph(), engines.front());
    entry.plan = spec.name();
    for (std::int64_t r = 0; r < repeats; ++r) {
      // A fresh session each repeat: a new build and new buffers (new addresses, new TLB and
      // cache state), so the repeats are independent measurements of the same plan.
      PlanSession session(data, provider, stream, spec);
      session.set_measure_options(options.measure);
      session.set_clock_source(gpu_clock_source(provider));
      session.warm_up_until_steady(options.warmup);
      auto rule = make_stopping_rule(options);
      const auto m = session.measure(*rule, false);
      entry.medians_ms.push_back(median_primary(m));
      entry.converged.push_back(m.timing.converged);
      const auto& clocks = m.timing.clocks;
      entry.sm_mhz_mean.push_back(clocks && clocks->sm_mhz ? clocks->sm_mhz->mean : std::nan(""));
      if (clocks && clocks->clock_unstable) ++entry.clock_unstable;
      entry.timing_method = m.timing.method;
    }
    entry.spread = spread_of(entry.medians_ms);
    const auto sorted = [&] {
      auto v = entry.medians_ms;
      std::sort(v.begin(), v.end());
      return v;
    }();
    entry.kind = sorted[sorted.size() / 2] < kShortKernelMs ? "short" : "long";
  } catch (const std::exception& e) {
    entry.error = e.what();
  }
  return entry;
}

nlohmann::json finite_or_null(const std::vector<double>& values) {
  auto j = nlohmann::json::array();
  for (double v : values) j.push_back(std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr));
  return j;
}

}  // namespace

double spread_of(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return *lo > 0 ? (*hi - *lo) / *lo : 0;
}

std::vector<Graph> default_calibration_graphs(bool device) {
  std::vector<Graph> graphs;
  if (device) {
    // ResNet-50 res2 3x3 at N=32 (~25-30 us on an H200, shared/reference/ANCHORS.md) and the same
    // layer widened to 256 channels at N=128 (~470 GFLOP, about 1 ms at fp16 tensor-core rates).
    graphs.push_back(conv_graph("calibrate_short_conv3x3_n32_c64_56_fp16", {32, 64, 64, 56, "half"}));
    graphs.push_back(conv_graph("calibrate_long_conv3x3_n128_c256_56_fp16", {128, 256, 256, 56, "half"}));
  } else {
    graphs.push_back(conv_graph("calibrate_short_conv3x3_n1_c16_14_fp32", {1, 16, 16, 14, "float"}));
    graphs.push_back(conv_graph("calibrate_long_conv3x3_n4_c64_28_fp32", {4, 64, 64, 28, "float"}));
  }
  return graphs;
}

Calibration run_calibration(const std::vector<Graph>& graphs, const std::vector<std::string>& providers,
                            const RunOptions& options, std::int64_t repeats) {
  Calibration c;
  c.timestamp_utc = utc_timestamp();
  c.repeats = repeats;
  for (const auto& name : providers) {
    auto provider = make_provider(name);
    if (!provider) throw std::invalid_argument(unknown_provider_message(name));
    if (const auto reason = provider->unusable_reason(); !reason.empty()) {
      CalibrationEntry entry;
      entry.provider = name;
      entry.error = "not usable here: " + reason;
      c.entries.push_back(std::move(entry));
      continue;
    }
    auto stream = provider->make_stream();
    const auto own =
        graphs.empty() ? default_calibration_graphs(provider->device() != DeviceKind::host) : graphs;
    for (const auto& graph : own) {
      GraphData data(graph, options.seed, true, options.fill);
      c.entries.push_back(calibrate_one(data, *provider, *stream, options, repeats));
    }
  }
  for (const auto& e : c.entries) {
    if (e.error) continue;
    auto& worst = e.kind == "short" ? c.short_spread : c.long_spread;
    worst = std::max(worst.value_or(0.0), e.spread);
  }
  return c;
}

nlohmann::json calibration_to_json(const Calibration& c) {
  using nlohmann::json;
  json entries = json::array();
  for (const auto& e : c.entries) {
    entries.push_back({{"graph", e.graph},
                       {"provider", e.provider},
                       {"engine", e.engine},
                       {"plan", e.plan},
                       {"timing_method", e.timing_method},
                       {"kind", e.kind},
                       {"medians_ms", e.medians_ms},
                       {"converged", e.converged},
                       {"sm_mhz_mean", finite_or_null(e.sm_mhz_mean)},
                       {"clock_unstable_repeats", e.clock_unstable},
                       {"spread", e.spread},
                       {"error", e.error ? json(*e.error) : json(nullptr)}});
  }
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  // Per provider as well: a GPU's kernel times spread less than a CPU library's, and `compare`
  // judges a row against its own provider's figure (report/noise_model.hpp).
  json providers = json::object();
  for (const auto& e : c.entries) {
    if (e.error) continue;
    auto& entry = providers[e.provider];
    const auto key = e.kind + "_spread";
    if (!entry.contains(key) || entry[key].get<double>() < e.spread) entry[key] = e.spread;
  }
  return {{"timestamp_utc", c.timestamp_utc},
          {"repeats", c.repeats},
          {"spread_definition", "max / min - 1 of the repeats' medians"},
          {"short_spread", opt(c.short_spread)},
          {"long_spread", opt(c.long_spread)},
          {"providers", providers},
          {"entries", entries}};
}

nlohmann::json noise_floor_summary(const nlohmann::json& calibration, const std::string& path) {
  return {{"file", path},
          {"timestamp_utc", calibration.value("timestamp_utc", "")},
          {"repeats", calibration.value("repeats", 0)},
          {"short_spread", calibration.contains("short_spread") ? calibration["short_spread"] : nullptr},
          {"long_spread", calibration.contains("long_spread") ? calibration["long_spread"] : nullptr},
          {"providers", calibration.contains("providers") ? calibration["providers"] : nullptr}};
}

std::string default_calibration_path() {
  if (const auto folder = dnnbench_cache_folder()) return (*folder / "calibration.json").string();
  return "dnnbench-calibration.json";
}

std::string calibration_file_problem(const std::string& path, bool must_exist) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return must_exist ? fmt::format(
                            "--calibration-file {}: no such file; metadata.noise_floor is null (write "
                            "one with `dnnbench calibrate`)",
                            path)
                      : "";
  const auto unusable = [&](const std::string& why) {
    return fmt::format(
        "calibration file {}: {}; metadata.noise_floor is null (rewrite it with `dnnbench "
        "calibrate`)",
        path, why);
  };
  std::ifstream in(path);
  if (!in) return unusable("cannot be read");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const std::exception&) {
    return unusable("not valid JSON");
  }
  if (!j.is_object() || !j.contains("entries") || !j["entries"].is_array() || !j.contains("repeats") ||
      !j["repeats"].is_number_integer())
    return unusable("not a `dnnbench calibrate` file (it has no `repeats` and `entries`)");
  return "";
}

nlohmann::json load_noise_floor(const std::string& path) {
  // A stale or foreign file is no reason to fail a run: the run warns (calibration_file_problem).
  if (!calibration_file_problem(path, false).empty()) return nullptr;
  std::ifstream in(path);
  if (!in) return nullptr;
  try {
    return noise_floor_summary(nlohmann::json::parse(in), path);
  } catch (const std::exception&) {
    return nullptr;
  }
}

}  // namespace dnnbench
