#include "cli/calibrate_command.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <iostream>
#include <set>

#include "cli/commands.hpp"
#include "cli/option_binder.hpp"
#include "env/calibration.hpp"
#include "env/peak_calibration.hpp"
#include "graph/reader.hpp"
#include "graph/validate.hpp"
#include "input/inputs.hpp"
#include "providers/registry.hpp"
#include "report/json_report.hpp"
#include "run/graph_loader.hpp"

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
                 "Graphs to calibrate on (default: a short and a long 3x3 convolution sized per device)")
      ->type_name("INPUT");
  app.add_option("--provider", c.providers,
                 "Providers (default: the default set, which leaves out the reference)")
      ->delimiter(',')
      ->type_name("NAME");
  app.add_option("--repeats", c.repeats, "Independent measurements of each plan, 2 to 1000 (default: 5)")
      ->type_name("N")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            std::int64_t n = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
            const bool whole = ec == std::errc() && end == text.data() + text.size() && !text.empty();
            return whole && n >= 2 && n <= 1000
                       ? ""
                       : fmt::format("expected an integer from 2 to 1000, got \"{}\"", text);
          },
          ""));
  app.add_option(
         "--calibration-file", c.calibration_file,
         "Write the result here (default: $XDG_CACHE_HOME/dnnbench/calibration.json); runs record it as "
         "metadata.noise_floor")
      ->type_name("FILE");
  app.add_flag("--peaks", c.peaks,
               "Also measure the peaks this machine achieves (a large matmul per data type, a large add) on "
               "every engine; runs then judge % of peak against them");
  // The measurement method's options, as `run` has them (cli/option_table.hpp).
  static const std::set<std::string, std::less<>> shared = {
      "warmup",          "target_ci", "max_time_ms",          "cache_mode",    "latency",
      "latency_idle_ms", "batch",     "per_execution_events", "warmup_max_ms", "clock_tolerance"};
  c.settings.binder = std::make_shared<RunOptionBinder>(
      app, [](const RunOptionSpec& spec) { return shared.contains(spec.key); });
}

namespace {

// The -g graphs that load; each one that does not is reported (file and JSON path) and left out,
// so that one bad input costs its own entry only. `bad_inputs` counts them.
std::vector<Graph> load_calibration_graphs(const CalibrateCommand& c, const GraphInputs& inputs,
                                           int& bad_inputs) {
  std::vector<Graph> graphs;
  GraphLoader loader(c.settings.options);  // the run's loader: same messages, duplicates left out
  for (const auto& input : inputs.inputs) {
    GraphResult loaded;
    auto graph = loader.load(input, loaded);
    if (!loaded.ok) {
      fmt::print(std::cerr, "dnnbench: {}\n", loaded.error_message.value_or(input.path));
      ++bad_inputs;
    } else if (graph) {
      graphs.push_back(std::move(*graph));
    }
  }
  return graphs;
}

}  // namespace

int execute_calibrate(CalibrateCommand& c) {
  check_option_conflicts(c.settings, c.settings.binder->apply(c.settings, nullptr));
  auto providers = c.providers.empty() ? default_provider_names() : c.providers;
  for (const auto& name : providers)
    if (const auto message = unknown_provider_message(name); !message.empty()) throw UsageError(message);
  const bool default_path = c.calibration_file.empty();
  const auto path = default_path ? default_calibration_path() : c.calibration_file;
  try {
    // The default file lives in the user's cache folder, made on first use; a path the user
    // gives must be writable as it is, checked before minutes of measuring.
    const auto parent = std::filesystem::path(path).parent_path();
    if (default_path && !parent.empty()) std::filesystem::create_directories(parent);
    check_writable_file(path);
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("--calibration-file: {}", e.what()));
  }
  int bad_inputs = 0;
  std::vector<Graph> graphs;
  GraphInputs inputs;  // keeps archive extractions alive while the graphs are read
  if (!c.graphs.empty()) {
    inputs = expand_graph_inputs(c.graphs);
    if (inputs.inputs.empty()) throw UsageError("no graph files found in the -g arguments");
    graphs = load_calibration_graphs(c, inputs, bad_inputs);
    if (graphs.empty()) {
      fmt::print(std::cerr, "dnnbench: none of the -g graphs loaded; {} left as it was\n", path);
      return kExitError;
    }
  }
  const auto calibration = run_calibration(graphs, providers, c.settings.options, c.repeats);
  print_calibration(calibration);
  // A calibration that measured nothing (every entry an error) would replace a good noise floor
  // with nulls: the file is written only when it holds a figure.
  if (!calibration.short_spread && !calibration.long_spread) {
    fmt::print(std::cerr, "dnnbench: nothing was measured; {} left as it was\n", path);
    return kExitError;
  }
  auto document = calibration_to_json(calibration);
  if (c.peaks) {
    const auto peaks = measure_peaks(providers, c.settings.options);
    print_peaks(peaks);
    document["peaks"] = measured_peaks_to_json(peaks);
  }
  try {
    write_json_file(path, document);
    fmt::print("Calibration written to {}\n", path);
  } catch (const std::exception& e) {
    fmt::print(std::cerr, "dnnbench: {}\n", e.what());
    return kExitError;
  }
  if (bad_inputs > 0) return kExitError;
  for (const auto& e : calibration.entries)
    if (e.error && e.error->rfind("not usable here", 0) != 0) return kExitError;
  return kExitOk;
}

}  // namespace dnnbench
