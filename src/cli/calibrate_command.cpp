#include "cli/calibrate_command.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/measure_flags.hpp"
#include "graph/reader.hpp"
#include "graph/validate.hpp"
#include "providers/registry.hpp"
#include "report/json_report.hpp"
#include "run/calibration.hpp"
#include "run/inputs.hpp"
#include "run/peak_calibration.hpp"

namespace dnnbench {
namespace {

void print_calibration(const Calibration& c) {
  fmt::print("{:<44} {:<9} {:<22} {:<5} {:>10}  {:>8}  medians (ms)\n", "graph", "provider", "engine", "kind",
             "median ms", "spread");
  for (const auto& e : c.entries) {
    if (e.error) {
      fmt::print("{:<44} {:<9} error: {}\n", e.graph.empty() ? "-" : e.graph, e.provider, *e.error);
      continue;
    }
    auto sorted = e.medians_ms;
    std::sort(sorted.begin(), sorted.end());
    fmt::print("{:<44} {:<9} {:<22} {:<5} {:>10.5f}  {:>7.2f}%  {:.5f}\n", e.graph, e.provider, e.engine,
               e.kind, sorted[sorted.size() / 2], 100 * e.spread, fmt::join(e.medians_ms, " "));
  }
  auto line = [](const char* kind, const std::optional<double>& v) {
    if (v)
      fmt::print("noise floor, {} kernels: repeats of the same plan spread by {:.2f}% (max/min - 1)\n", kind,
                 100 * *v);
  };
  line("short", c.short_spread);
  line("long", c.long_spread);
}

void print_peaks(const std::vector<MeasuredPeak>& peaks) {
  for (const auto& p : peaks) {
    if (p.error) {
      fmt::print("peak {} {}: {}\n", p.provider, p.data_type, *p.error);
      continue;
    }
    const auto flops = p.matrix_flops ? p.matrix_flops : p.vector_flops;
    fmt::print("peak {} {} ({}): {:.2f} TFLOP/s ({}), {:.1f} GB/s ({})\n", p.provider, p.data_type, p.device,
               flops.value_or(0) / 1e12, p.flops_engine, p.bytes_per_s.value_or(0) / 1e9, p.bandwidth_engine);
  }
}

}  // namespace

void add_calibrate_options(CLI::App& app, CalibrateCommand& c) {
  app.add_option("-g,--graph", c.graphs,
                 "Graphs to calibrate on (default: a short and a long 3x3 convolution sized per device)");
  app.add_option("--provider", c.providers,
                 "Providers (default: the default set, which leaves out the reference)")
      ->delimiter(',');
  app.add_option("--repeats", c.repeats, "Independent measurements of each plan")->check(CLI::Range(2, 1000));
  app.add_option(
      "--calibration-file", c.calibration_file,
      "Write the result here (default: $XDG_CACHE_HOME/dnnbench/calibration.json); runs record it as "
      "metadata.noise_floor");
  app.add_option("--warmup", c.options.warmup, "Untimed executions before sampling, at least")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--target-ci", c.options.adaptive.target_ci_rel,
                 "Stop each measurement when the median's 95% CI is within this fraction of it")
      ->check(CLI::Range(1e-6, 1.0));
  app.add_option("--max-time-ms", c.options.adaptive.max_time_ms,
                 "Timed milliseconds per measurement at most")
      ->check(CLI::PositiveNumber);
  app.add_flag("--peaks", c.peaks,
               "Also measure the peaks this machine achieves (a large matmul per data type, a large add) on "
               "every engine; runs then judge % of peak against them");
  add_measure_flags(app, c.options.measure);
}

int execute_calibrate(CalibrateCommand& c) {
  auto providers = c.providers.empty() ? default_provider_names() : c.providers;
  for (const auto& name : providers)
    if (const auto message = unknown_provider_message(name); !message.empty()) throw UsageError(message);
  std::vector<Graph> graphs;
  if (!c.graphs.empty()) {
    try {
      const auto inputs = expand_graph_inputs(c.graphs);  // keeps archive extractions alive meanwhile
      for (const auto& input : inputs.inputs) {
        if (input.error) throw std::runtime_error(fmt::format("{}: {}", input.path, *input.error));
        auto graph = read_graph_file(input.file);  // its errors name the file and the JSON path
        try {
          validate_graph(graph, c.options.limits);
        } catch (const std::exception& e) {
          throw std::runtime_error(fmt::format("{}: {}", input.path, e.what()));
        }
        graphs.push_back(std::move(graph));
      }
    } catch (const std::exception& e) {
      fmt::print(std::cerr, "dnnbench: {}\n", e.what());
      return kExitError;
    }
    if (graphs.empty()) throw UsageError("no graph files found in the -g arguments");
  }
  const auto calibration = run_calibration(graphs, providers, c.options, c.repeats);
  print_calibration(calibration);
  auto document = calibration_to_json(calibration);
  if (c.peaks) {
    const auto peaks = measure_peaks(providers, c.options);
    print_peaks(peaks);
    document["peaks"] = measured_peaks_to_json(peaks);
  }
  const auto path = c.calibration_file.empty() ? default_calibration_path() : c.calibration_file;
  try {
    const auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent);
    write_json_file(path, document);
    fmt::print("Calibration written to {}\n", path);
  } catch (const std::exception& e) {
    fmt::print(std::cerr, "dnnbench: {}\n", e.what());
    return kExitError;
  }
  for (const auto& e : calibration.entries)
    if (e.error && e.error->rfind("not usable here", 0) != 0) return kExitError;
  return kExitOk;
}

}  // namespace dnnbench
