#include "cli/commands.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <iostream>

#include "graph/reader.hpp"
#include "graph/validate.hpp"
#include "providers/registry.hpp"
#include "report/console_report.hpp"
#include "report/json_report.hpp"
#include "run/inputs.hpp"
#include "run/metadata.hpp"
#include "run/suite_runner.hpp"

namespace dnnbench {
namespace {

// Console sink: a progress line per graph, the graph's table when it finishes, details with -v.
class ConsoleObserver final : public RunObserver {
 public:
  ConsoleObserver(bool verbose, bool quiet) : verbose_(verbose), quiet_(quiet) {}
  void graph_started(std::size_t index, std::size_t count, const std::string& path) override {
    if (!quiet_) fmt::print(std::cerr, "[{}/{}] {}\n", index + 1, count, path);
  }
  void graph_finished(const GraphResult& graph) override {
    if (quiet_) return;
    print_graph_table(std::cout, graph);
    if (verbose_)
      for (const auto& row : graph.results) print_row_details(std::cout, row);
    std::cout.flush();
  }

 private:
  bool verbose_, quiet_;
};

void check_providers_exist(const std::vector<std::string>& names) {
  for (const auto& name : names)
    if (const auto message = unknown_provider_message(name); !message.empty()) throw UsageError(message);
}

}  // namespace

void add_run_options(CLI::App& app, RunCommand& c) {
  app.add_option("-g,--graph", c.graphs, "Graph files or folders (repeat or comma-separate)")->required();
  app.add_option("--provider", c.providers, "Providers to run (default: every provider built)")
      ->delimiter(',');
  app.add_option("--engine", c.engines, "Engine ids or names to run, in this order (default: all)")
      ->delimiter(',');
  app.add_option("--warmup", c.options.warmup, "Untimed executions before sampling")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--iters", c.iters, "Fixed number of timed samples (default: adaptive stopping rule)")
      ->check(CLI::PositiveNumber);
  app.add_option("--target-ci", c.options.adaptive.target_ci_rel,
                 "Adaptive rule: stop when the median's 95% CI is within this fraction of it")
      ->check(CLI::Range(1e-6, 1.0));
  app.add_option("--min-iters", c.options.adaptive.min_iters, "Adaptive rule: minimum samples")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-iters", c.options.adaptive.max_iters, "Adaptive rule: maximum samples")
      ->check(CLI::PositiveNumber);
  app.add_option("--min-time-ms", c.options.adaptive.min_time_ms, "Adaptive rule: minimum timed milliseconds")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-time-ms", c.options.adaptive.max_time_ms, "Adaptive rule: maximum timed milliseconds")
      ->check(CLI::PositiveNumber);
  app.add_option("--seed", c.options.seed, "Seed of the input fills");
  app.add_option("-o,--output", c.output, "Write the results as JSON to this file");
  app.add_option("--rtol", c.rtol, "Relative tolerance for every output (default: per data type)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--atol", c.atol, "Absolute tolerance for every output (default: per data type)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--dump-tensors", c.dump_tensors,
                 "Write inputs, reference and each row's outputs as .npy here");
  app.add_flag("--save-samples", c.options.save_samples, "Keep every timing sample in the JSON");
  app.add_option("--max-graph-bytes", c.options.limits.max_graph_bytes,
                 "Refuse graphs whose tensors need more bytes than this")
      ->check(CLI::PositiveNumber);
  app.add_flag("-v,--verbose", c.verbose, "Print a detailed block per row");
  app.add_flag("-q,--quiet", c.quiet, "Print nothing but errors and the summary");
}

void add_list_engines_options(CLI::App& app, ListEnginesCommand& c) {
  app.add_option("-g,--graph", c.graphs, "Graph files or folders (repeat or comma-separate)")->required();
  app.add_option("--provider", c.providers, "Providers to ask (default: every provider built)")
      ->delimiter(',');
}

int execute_run(RunCommand& c, const std::vector<std::string>& command_line) {
  auto& options = c.options;
  options.providers = c.providers;
  options.engines = c.engines;
  if (c.iters > 0) options.iters = c.iters;
  if (c.rtol >= 0) options.rtol = c.rtol;
  if (c.atol >= 0) options.atol = c.atol;
  if (!c.dump_tensors.empty()) options.dump_tensors_dir = c.dump_tensors;
  if (options.adaptive.max_iters < options.adaptive.min_iters)
    throw UsageError(fmt::format("--max-iters ({}) is below --min-iters ({})", options.adaptive.max_iters,
                                 options.adaptive.min_iters));
  check_providers_exist(options.providers);
  const auto paths = expand_graph_inputs(c.graphs);
  if (paths.empty()) throw UsageError("no graph files found in the -g arguments");

  const auto busy = busy_machine_warning();
  if (!busy.empty()) fmt::print(std::cerr, "dnnbench: warning: {}\n", busy);
  ConsoleObserver observer(c.verbose, c.quiet);
  auto suite = run_suite(paths, options, observer);
  suite.metadata = collect_metadata(command_line, options);
  suite.metadata["warnings"] = busy.empty() ? nlohmann::json::array() : nlohmann::json::array({busy});
  print_suite_summary(std::cout, suite);
  if (!c.output.empty()) {
    try {
      write_json_file(c.output, suite_to_json(suite));
      if (!c.quiet) fmt::print(std::cout, "Results written to {}\n", c.output);
    } catch (const std::exception& e) {
      fmt::print(std::cerr, "dnnbench: {}\n", e.what());
      return kExitError;
    }
  }
  return exit_code_for(suite);
}

int execute_list_engines(const ListEnginesCommand& c) {
  check_providers_exist(c.providers);
  std::vector<std::string> names = c.providers;
  if (names.empty()) names = default_provider_names();
  int status = kExitOk;
  for (const auto& path : expand_graph_inputs(c.graphs)) {
    Graph graph;
    try {
      graph = read_graph_file(path);
      validate_graph(graph);
    } catch (const std::exception& e) {
      fmt::print(std::cerr, "{}\n", e.what());
      status = kExitError;
      continue;
    }
    fmt::print("{} ({})\n", graph.name, path);
    const auto unsupported = graph.unsupported_types();
    for (const auto& name : names) {
      auto provider = make_provider(name);
      if (!unsupported.empty()) {
        fmt::print("  {}: skipped: unsupported op {}\n", name, unsupported.front());
        continue;
      }
      try {
        const auto engines = provider->engines(graph);
        fmt::print("  {} ({}): {} engine(s)\n", name, provider->version(), engines.size());
        for (const auto& e : engines) {
          fmt::print("    {:<24} {}\n", e.id, e.name == e.id ? "" : e.name);
          for (const auto& note : e.notes) fmt::print("      - {}\n", note);
        }
      } catch (const std::exception& e) {
        fmt::print("  {}: skipped: {}\n", name, e.what());
      }
    }
  }
  return status;
}

int execute_list_providers() {
  for (const auto& entry : provider_registry()) {
    try {
      auto provider = entry.make();
      fmt::print("{:<10} {}{}\n", entry.name, provider->version(),
                 entry.default_on ? "" : "  (opt-in: --provider " + entry.name + ")");
    } catch (const std::exception& e) {
      fmt::print("{:<10} unusable: {}\n", entry.name, e.what());
    }
  }
  return kExitOk;
}

}  // namespace dnnbench
