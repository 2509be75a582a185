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
#include "graph/reader.hpp"
#include "graph/validate.hpp"
#include "providers/registry.hpp"
#include "report/json_report.hpp"
#include "run/calibration.hpp"
#include "run/inputs.hpp"

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
  // The measurement method's options, as `run` has them (cli/option_table.hpp).
  static const std::set<std::string, std::less<>> shared = {
      "warmup",          "target_ci", "max_time_ms",          "cache_mode",    "latency",
      "latency_idle_ms", "batch",     "per_execution_events", "warmup_max_ms", "clock_tolerance"};
  c.settings.binder = std::make_shared<RunOptionBinder>(
      app, [](const RunOptionSpec& spec) { return shared.contains(spec.key); });
}

int execute_calibrate(CalibrateCommand& c) {
  check_option_conflicts(c.settings, c.settings.binder->apply(c.settings, nullptr));
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
          validate_graph(graph, c.settings.options.limits);
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
  const auto calibration = run_calibration(graphs, providers, c.settings.options, c.repeats);
  print_calibration(calibration);
  const auto path = c.calibration_file.empty() ? default_calibration_path() : c.calibration_file;
  try {
    const auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent);
    write_json_file(path, calibration_to_json(calibration));
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
