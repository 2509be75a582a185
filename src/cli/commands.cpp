#include "cli/commands.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <iostream>

#include "cli/distributed_command.hpp"
#include "cli/measure_flags.hpp"
#include "cli/progress.hpp"
#include "cli/recipe.hpp"

#include "graph/reader.hpp"
#include "graph/validate.hpp"
#include "providers/registry.hpp"
#include "report/console_report.hpp"
#include "report/json_report.hpp"
#include "run/graph_loader.hpp"
#include "run/inputs.hpp"
#include "run/interrupt.hpp"
#include "run/isolation.hpp"
#include "run/journal.hpp"
#include "run/metadata.hpp"
#include "run/oracle.hpp"
#include "run/suite_runner.hpp"
#include "version/git_revision.hpp"

namespace dnnbench {
namespace {

// Console sink: progress on stderr (cli/progress.hpp), the graph's table when it finishes,
// details with -v.
class ConsoleObserver final : public RunObserver {
 public:
  ConsoleObserver(bool verbose, bool quiet, ProgressMode progress, bool dry_run)
      : verbose_(verbose), quiet_(quiet), dry_run_(dry_run), progress_(progress) {}
  void graph_started(std::size_t index, std::size_t count, const std::string& path) override {
    progress_.graph_started(index, count, path);
  }
  void row_finished(const GraphResult&, const RowResult&) override { progress_.row_finished(); }
  void graph_finished(const GraphResult& graph) override {
    if (!quiet_) {
      progress_.clear();
      print_graph(graph);
      std::cout.flush();
    }
    progress_.graph_finished();
  }
  void finish() { progress_.clear(); }

 private:
  void print_graph(const GraphResult& graph) {
    if (graph.filtered) return;  // counted in the summary; listing thousands of them helps nobody
    if (graph.duplicate_of) {
      fmt::print(std::cout, "\n{}  duplicate of {}, not run  {}\n", graph.graph_name, *graph.duplicate_of,
                 graph.graph_path);
      return;
    }
    if (dry_run_ && graph.ok) {
      fmt::print(std::cout, "\n{}  would run  {}\n", graph.graph_name, graph.graph_path);
      return;
    }
    print_graph_table(std::cout, graph);
    if (verbose_)
      for (const auto& row : graph.results) print_row_details(std::cout, row);
  }

  bool verbose_, quiet_, dry_run_;
  ProgressPrinter progress_;
};

// Providers a run uses: --provider, else those of the recipe's engine matrix, else the default set.
std::vector<std::string> resolve_providers(const RunCommand& c) {
  if (!c.providers.empty() || c.options.engine_matrix.empty()) return c.providers;
  std::vector<std::string> names;
  for (const auto& choice : c.options.engine_matrix)
    if (std::find(names.begin(), names.end(), choice.provider) == names.end())
      names.push_back(choice.provider);
  return names;
}

void print_run_header(const RunOptions& options, std::size_t graph_inputs) {
  std::vector<std::string> providers;
  const auto described = describe_providers(options);
  for (const auto& [name, entry] : described.items())
    providers.push_back(entry["version"].is_string()
                            ? fmt::format("{} {}", name, entry["version"].get<std::string>())
                            : fmt::format("{} (unusable)", name));
  fmt::print(std::cout, "dnnbench {} ({}) | providers: {} | {} graph input{}{}\n", DNNBENCH_VERSION,
             git_revision(), fmt::join(providers, ", "), graph_inputs, graph_inputs == 1 ? "" : "s",
             options.recipe_path ? " | recipe " + *options.recipe_path : "");
  std::cout.flush();
}

// --heur-mode: the cuDNN heuristic mode that orders engines and picks each one's plan.
void add_heur_mode_option(CLI::App& app, ProviderSettings& settings) {
  app.add_option("--heur-mode", settings.cudnn_heur_mode,
                 "cuDNN heuristic mode: a, b or fallback (default: $DNNBENCH_CUDNN_HEUR_MODE, else a)")
      ->check(CLI::IsMember({"a", "b", "fallback"}));
}

void check_providers_exist(const std::vector<std::string>& names) {
  for (const auto& name : names)
    if (const auto message = unknown_provider_message(name); !message.empty()) throw UsageError(message);
}

// The journal's path: --journal, else beside --output; empty when there is neither.
std::string journal_path(const RunCommand& c) {
  if (!c.journal.empty()) return c.journal;
  return c.output.empty() ? "" : c.output + ".journal.jsonl";
}

// --resume: what the journal holds, refused when the options that change results differ.
std::optional<Journal> read_resume_journal(const std::string& path, const nlohmann::json& fingerprint) {
  if (path.empty()) throw UsageError("--resume needs a journal: give --journal FILE or -o FILE");
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    fmt::print(std::cerr, "dnnbench: --resume: no journal {} yet; starting from the beginning\n", path);
    return std::nullopt;
  }
  Journal journal;
  try {
    journal = read_journal(path);
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("--resume: {}", e.what()));
  }
  const auto differences = fingerprint_differences(journal.options, fingerprint);
  if (!differences.empty())
    throw UsageError(
        fmt::format("--resume: the options differ from those of the journal {} ({}); run with "
                    "the same options, or without --resume to start over",
                    path, fmt::join(differences, "; ")));
  return journal;
}

IsolationMode resolve_isolation(const RunCommand& c) {
  if (c.isolate.empty())
    return c.timeout_s > 0 ? IsolationMode::graph : default_isolation(c.options.providers);
  const auto mode = *isolation_mode_from_name(c.isolate);  // CLI11 checked the name
  if (mode == IsolationMode::none && c.timeout_s > 0)
    throw UsageError("--timeout-s needs a child process to kill: use --isolate graph or row");
  return mode;
}

}  // namespace

void add_run_options(CLI::App& app, RunCommand& c) {
  c.app = &app;
  app.add_option("-g,--graph", c.graphs,
                 "Graph files, folders, quoted globs ('graphs/**/*.json') or archives (.tar[.gz|.xz|.bz2], "
                 ".tgz, .zip); repeat or comma-separate");
  app.add_option("--config", c.config,
                 "Read run options from this TOML recipe (command-line flags override it)");
  app.add_option("--provider", c.providers, "Providers to run (default: every provider built)")
      ->delimiter(',');
  app.add_option("--skip-engine", c.skip_engines, "Engine ids or names never to run")->delimiter(',');
  app.add_option("--max-engines", c.options.max_engines,
                 "Run only the first N engines of each provider (the heuristic's top N; default: all)")
      ->check(CLI::PositiveNumber);
  app.add_option("--op", c.ops,
                 "Keep only graphs with a node of this op type (node type, e.g. ConvolutionFwdAttributes, or "
                 "family, e.g. conv_fwd, matmul)")
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
  add_measure_flags(app, c.options.measure);
  app.add_option_function<std::string>(
      "--calibration-file", [&c](const std::string& path) { c.options.calibration_file = path; },
      "Record the noise floor from this `dnnbench calibrate` file in the metadata (default: "
      "$XDG_CACHE_HOME/dnnbench/calibration.json when present)");
  app.add_option("--seed", c.options.seed, "Seed of the input fills");
  app.add_option("-o,--output", c.output, "Write the results as JSON to this file");
  app.add_option("--rtol", c.rtol, "Relative tolerance for every output (default: per data type)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--atol", c.atol, "Absolute tolerance for every output (default: per data type)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--dump-tensors", c.dump_tensors,
                 "Write inputs, reference and each row's outputs as .npy here");
  app.add_flag("--save-samples", c.options.save_samples, "Keep every timing sample in the JSON");
  app.add_flag("--oracle", c.options.oracle.enabled,
               "Per row: sweep the engine's plans, re-time the winner against the heuristic plan paired");
  app.add_flag("--oracle-aa", c.options.oracle.aa_self_check,
               "Oracle self-check: the heuristic plan against itself through the same path (noise floor)");
  add_heur_mode_option(app, c.options.provider_settings);
  app.add_flag("--cpu-reference{false}", c.options.gpu_reference,
               "Judge every row by the fp64 CPU reference (default: cuDNN rows of graphs with a "
               "convolution or matmul by the fp32 CUDA reference where it can run)");
  app.add_option("--oracle-max-plans,--max-plans-per-engine", c.options.oracle.max_plans,
                 "Oracle: plans swept per row (one engine of one graph) at most")
      ->check(CLI::PositiveNumber);
  app.add_option("--oracle-max-seconds", c.options.oracle.max_seconds,
                 "Oracle: seconds of sweep per row at most")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-graph-bytes", c.options.limits.max_graph_bytes,
                 "Refuse graphs whose tensors need more bytes than this")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-memory", c.max_memory,
                 "Refuse graphs that need more host (or device) memory than this, e.g. 16GiB "
                 "(default: 80% of the free host memory, 90% of the free device memory)")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::PositiveNumber);
  app.add_flag("-v,--verbose", c.verbose, "Print a detailed block per row");
  app.add_flag("-q,--quiet", c.quiet, "Print nothing but errors and the summary");
  app.add_option("--progress", c.progress,
                 "Progress on stderr: bar (one updating line), lines ([i/N] path), none; auto: bar on a "
                 "terminal, else lines")
      ->check(CLI::IsMember({"auto", "bar", "lines", "none"}));
  app.add_flag("--dry-run", c.dry_run, "Load, filter and list the graphs; run nothing");
  app.add_option("--max-archive-entry-bytes", c.options.archive.max_entry_bytes,
                 "Refuse archive entries that extract to more bytes than this")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-archive-bytes", c.options.archive.max_total_bytes,
                 "Stop extracting an archive past this many bytes")
      ->check(CLI::PositiveNumber);
  app.add_option(
      "--journal", c.journal,
      "Append every finished row to this JSON-lines journal (default: OUTPUT.journal.jsonl with -o)");
  app.add_flag("--resume", c.resume,
               "Reuse the rows the journal holds (same options required) and run the rest");
  app.add_option("--isolate", c.isolate,
                 "Run each graph (or row) in a child process, so that a crash or hang costs one row "
                 "(default: graph with a GPU provider, else none)")
      ->check(CLI::IsMember({"none", "graph", "row"}));
  app.add_option("--timeout-s", c.timeout_s,
                 "Kill an isolated child running longer than this; its row becomes `timeout` (implies "
                 "--isolate graph)")
      ->check(CLI::PositiveNumber);
  add_distribution_options(app, c);
  // Hidden: how an isolating parent starts its children (run/isolation.hpp).
  app.add_option("--isolated-child-graph", c.child_graph)->group("");
  app.add_option("--isolated-child-path", c.child_path)->group("");
  app.add_option("--isolated-child-journal", c.child_journal)->group("");
  app.add_option("--isolated-child-rows", c.child_rows)->group("");
}

void add_list_engines_options(CLI::App& app, ListEnginesCommand& c) {
  app.add_option("-g,--graph", c.graphs, "Graph files or folders (repeat or comma-separate)")->required();
  app.add_option("--provider", c.providers, "Providers to ask (default: every provider built)")
      ->delimiter(',');
  add_heur_mode_option(app, c.provider_settings);
}

int execute_run(RunCommand& c, const std::vector<std::string>& command_line) {
  if (!c.config.empty() && c.app) apply_recipe(read_recipe(c.config), c, *c.app);
  if (c.graphs.empty())
    throw UsageError("no graphs: give -g FILE_OR_FOLDER (or `graphs` in the --config recipe)");
  auto& options = c.options;
  options.providers = resolve_providers(c);
  options.engines = c.engines;
  options.skip_engines = c.skip_engines;
  options.ops = c.ops;
  options.dry_run = c.dry_run;
  options.graph_arguments = c.graphs;
  if (!c.output.empty()) options.output_path = c.output;
  if (c.iters > 0) options.iters = c.iters;
  if (c.max_memory > 0) options.max_memory = c.max_memory;
  if (c.rtol >= 0) options.rtol = c.rtol;
  if (c.atol >= 0) options.atol = c.atol;
  if (!c.dump_tensors.empty()) options.dump_tensors_dir = c.dump_tensors;
  if (options.adaptive.max_iters < options.adaptive.min_iters)
    throw UsageError(fmt::format("--max-iters ({}) is below --min-iters ({})", options.adaptive.max_iters,
                                 options.adaptive.min_iters));
  check_providers_exist(options.providers);
  for (const auto& choice : options.engine_matrix) check_providers_exist({choice.provider});
  if (options.oracle.aa_self_check) options.oracle.enabled = true;
  if (!c.child_graph.empty())
    return run_isolated_child({c.child_graph, c.child_path, c.child_journal, c.child_rows}, options);
  if (const auto code = execute_run_under_mpi(c, command_line)) return *code;

  const auto isolation = resolve_isolation(c);
  const auto fingerprint = options_fingerprint(options);
  const auto journal_file = journal_path(c);
  const auto resume = c.resume ? read_resume_journal(journal_file, fingerprint) : std::nullopt;
  GraphInputs inputs;  // owns the folders archives are extracted into, until the run is over
  try {
    inputs = expand_graph_inputs(c.graphs, options.archive);
  } catch (const std::exception& e) {
    fmt::print(std::cerr, "dnnbench: {}\n", e.what());
    return kExitError;
  }
  if (inputs.inputs.empty()) throw UsageError("no graph files found in the -g arguments");
  const auto shard = shard_inputs(c, inputs.inputs);

  if (!c.quiet) print_run_header(options, inputs.inputs.size());
  auto warnings = oracle_warnings(options);
  if (const auto busy = busy_machine_warning(); !busy.empty()) warnings.insert(warnings.begin(), busy);
  for (const auto& warning : warnings) fmt::print(std::cerr, "dnnbench: warning: {}\n", warning);
  ConsoleObserver observer(c.verbose, c.quiet,
                           resolve_progress_mode(c.progress, c.quiet, ::isatty(STDERR_FILENO)), c.dry_run);
  std::unique_ptr<JournalWriter> journal;
  std::vector<RunObserver*> sinks{&observer};
  if (!journal_file.empty() && !options.dry_run) {
    try {
      journal = std::make_unique<JournalWriter>(journal_file, fingerprint, /*append=*/resume.has_value());
    } catch (const std::exception& e) {
      fmt::print(std::cerr, "dnnbench: {}\n", e.what());
      return kExitError;
    }
    sinks.push_back(journal.get());
  }
  ObserverFanout fanout(sinks);
  std::unique_ptr<GraphExecutor> isolated;
  if (isolation != IsolationMode::none && !options.dry_run)
    isolated = make_isolated_executor(isolation, c.timeout_s > 0 ? std::optional(c.timeout_s) : std::nullopt,
                                      {command_line.begin() + 1, command_line.end()});
  install_stop_signal_handlers();
  auto suite = run_suite(inputs.inputs, options, fanout,
                         {isolated.get(), resume ? &*resume : nullptr, shard ? &*shard : nullptr});
  observer.finish();
  suite.metadata = collect_metadata(command_line, options);
  if (shard) record_shard(c, *shard, suite);
  suite.metadata["warnings"] = warnings;
  suite.metadata["options"]["isolate"] = isolation_mode_name(isolation);
  suite.metadata["options"]["timeout_s"] =
      c.timeout_s > 0 ? nlohmann::json(c.timeout_s) : nlohmann::json(nullptr);
  suite.metadata["options"]["journal"] =
      journal_file.empty() ? nlohmann::json(nullptr) : nlohmann::json(journal_file);
  suite.metadata["options"]["resumed_rows"] = resume ? nlohmann::json(resume->rows) : nlohmann::json(nullptr);
  if (const int signal = stop_signal(); signal != 0)
    fmt::print(std::cerr, "dnnbench: stopped by signal {} ({}); writing what finished\n", signal,
               strsignal(signal));
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
  // 128 + the signal, as a shell reports a process the signal ended (130 SIGINT, 143 SIGTERM).
  if (const int signal = stop_signal(); signal != 0 && !suite.complete) return 128 + signal;
  return exit_code_for(suite);
}

int execute_list_engines(const ListEnginesCommand& c) {
  check_providers_exist(c.providers);
  std::vector<std::string> names = c.providers;
  if (names.empty()) names = default_provider_names();
  int status = kExitOk;
  const auto inputs = expand_graph_inputs(c.graphs);
  RunOptions load_options;
  GraphLoader loader(load_options);
  for (const auto& input : inputs.inputs) {
    GraphResult loaded;
    auto found = loader.load(input, loaded);
    if (!loaded.ok) {
      fmt::print(std::cerr, "{}\n", loaded.error_message.value_or("?"));
      status = kExitError;
      continue;
    }
    if (!found) {
      fmt::print("{} ({}): duplicate of {}\n", loaded.graph_name, input.path,
                 loaded.duplicate_of.value_or("?"));
      continue;
    }
    Graph& graph = *found;
    const auto& path = input.path;
    fmt::print("{} ({})\n", graph.name, path);
    const auto unsupported = graph.unsupported_types();
    for (const auto& name : names) {
      auto provider = make_provider(name, c.provider_settings);
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
      auto provider = entry.make({});
      const auto unusable = provider->unusable_reason();
      fmt::print("{:<10} {}{}\n", entry.name, provider->version(),
                 !unusable.empty()  ? "  (not usable here: " + unusable + ")"
                 : entry.default_on ? ""
                                    : "  (opt-in: --provider " + entry.name + ")");
    } catch (const std::exception& e) {
      fmt::print("{:<10} unusable: {}\n", entry.name, e.what());
    }
  }
  return kExitOk;
}

IsolationMode run_isolation(const RunCommand& c) {
  return resolve_isolation(c);
}

std::string run_journal_path(const RunCommand& c) {
  return journal_path(c);
}

std::unique_ptr<RunObserver> make_run_console(const RunCommand& c) {
  return std::make_unique<ConsoleObserver>(c.verbose, c.quiet, ProgressMode::none, c.dry_run);
}

}  // namespace dnnbench
