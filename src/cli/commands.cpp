#include "cli/commands.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string_view>

#include "cli/distributed_command.hpp"
#include "cli/import_command.hpp"
#include "cli/option_binder.hpp"
#include "cli/progress.hpp"
#include "cli/recipe.hpp"

#include "distribute/build_ahead.hpp"
#include "distribute/distributed_run.hpp"
#include "env/calibration.hpp"
#include "env/fp32_math_environment.hpp"
#include "env/host_load.hpp"
#include "env/metadata.hpp"
#include "env/run_record.hpp"
#include "graph/reader.hpp"
#include "graph/validate.hpp"
#include "input/import_inputs.hpp"
#include "input/inputs.hpp"
#include "isolate/isolation.hpp"
#include "isolate/profiler.hpp"
#include "isolate/repeat_passes.hpp"
#include "providers/registry.hpp"
#include "report/console_report.hpp"
#include "report/csv_report.hpp"
#include "report/json_report.hpp"
#include "report/model_summary.hpp"
#include "report/noise_model.hpp"
#include "report/pass_merge.hpp"
#include "report/peaks.hpp"
#include "report/tuning_db.hpp"
#include "report/tuning_report.hpp"
#include "report/workload_report.hpp"
#include "run/graph_loader.hpp"
#include "run/journal.hpp"
#include "run/suite_runner.hpp"
#include "sys/interrupt.hpp"
#include "tune/oracle.hpp"
#include "version/git_revision.hpp"
#include "version/providers_not_built.hpp"

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

// -o, --csv and the journal must be writable before anything runs (a long run that cannot save is lost).
// A dry run writes neither, but is checked too: it is how a command is tried before a long run.
void check_output_paths(const RunCommand& c, const std::string& journal_file) {
  const auto check = [](const std::string& path, std::string_view flag) {
    if (path.empty()) return;
    try {
      check_writable_file(path);
    } catch (const std::exception& e) {
      throw UsageError(fmt::format("{}: {}", flag, e.what()));
    }
  };
  check(c.output, "-o");
  check(c.csv, "--csv");
  check(journal_file, c.journal.empty() ? "the journal (-o FILE's FILE.journal.jsonl)" : "--journal");
  check(c.export_plans, "--export-plans");
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
  app.add_option("--config", c.config,
                 "Read run options from this TOML recipe (command-line flags override it; docs/recipes.md)")
      ->type_name("FILE");
  c.binder = std::make_shared<RunOptionBinder>(app);
}

void add_list_engines_options(CLI::App& app, ListEnginesCommand& c) {
  app.add_option(
         "-g,--graph", c.graphs,
         "Graph files, folders, globs, archives or import sources, as for run (repeat or comma-separate)")
      ->required()
      ->type_name("INPUT");
  app.add_option("--provider", c.providers, "Providers to ask (default: every provider built)")
      ->delimiter(',')
      ->type_name("NAME");
  c.settings.binder = std::make_shared<RunOptionBinder>(
      app, [](const RunOptionSpec& spec) { return spec.key == "heur_mode" || spec.key == "dims"; });
}

// What a finished run writes, without MPI and on rank 0 under it: the console summary, the
// tuning records, the model summary, the JSON and the CSV, in that order, so that an output that
// cannot be written loses nothing written before it. 0, or kExitError when one failed.
int write_run_outputs(const RunCommand& c, const SuiteResult& suite,
                      const std::map<std::string, std::int64_t>& layer_counts) {
  const auto& options = c.options;
  print_suite_summary(std::cout, suite);
  if (!c.export_plans.empty() && !options.dry_run) {
    try {
      const auto records = tuning_records(suite);
      write_tuning_file(c.export_plans, records);
      if (!c.quiet)
        fmt::print(std::cout, "Tuning records ({}) written to {}\n", records.size(), c.export_plans);
    } catch (const std::exception& e) {
      fmt::print(std::cerr, "dnnbench: --export-plans: {}\n", e.what());
      return kExitError;
    }
  }
  const auto model = model_summary(suite, layer_counts);
  if (!options.dry_run) print_model_summary(std::cout, model);
  const auto workloads = workload_report(suite);
  if (!options.dry_run) print_workload_report(std::cout, workloads);
  if (const auto line = workload_inputs_line(suite); !line.empty()) fmt::print(std::cout, "{}\n", line);
  if (!c.output.empty() && options.dry_run) {
    if (!c.quiet) fmt::print(std::cout, "Dry run: nothing written to {}\n", c.output);
  } else if (!c.output.empty()) {
    try {
      auto doc = suite_to_json(suite);
      if (!model.empty()) doc["model_summary"] = model_summary_to_json(model);
      if (!workloads.empty()) doc["workload_report"] = workload_report_to_json(workloads);
      write_json_file(c.output, doc);
      if (!c.quiet) fmt::print(std::cout, "Results written to {}\n", c.output);
    } catch (const std::exception& e) {
      fmt::print(std::cerr, "dnnbench: {}\n", e.what());
      return kExitError;
    }
  }
  // After the JSON, so that a CSV that cannot be written loses nothing.
  if (!c.csv.empty() && !options.dry_run) {
    try {
      std::ostringstream text;
      write_results_csv(text, suite);
      write_text_file(c.csv, text.str());
      if (!c.quiet) fmt::print(std::cout, "CSV written to {}\n", c.csv);
    } catch (const std::exception& e) {
      fmt::print(std::cerr, "dnnbench: {}\n", e.what());
      return kExitError;
    }
  }
  return 0;
}

namespace {

// The run's span, from its start to now.
RunRecord::Timing run_timing(const std::string& start_utc, std::chrono::steady_clock::time_point start) {
  return {start_utc, utc_timestamp(),
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

}  // namespace

// `run --repeat N`, N >= 2: the suite as N passes in fresh child processes, merged
// (isolate/repeat_passes.hpp, report/pass_merge.hpp). The run's metadata, host conditions and timing
// span every pass.
int execute_repeat_passes(RunCommand& c, const std::vector<std::string>& command_line,
                          const HostLoadProbe& host_load, const std::string& run_start,
                          std::chrono::steady_clock::time_point run_clock) {
  const auto& options = c.options;
  if (!c.profile.empty())
    throw UsageError(
        "--profile with --repeat N: profile the rows in a run without --repeat (docs/profiling.md)");
  if (!c.shard.empty())
    throw UsageError("--shard with --repeat N: run each shard's passes with --repeat, then merge the shards");
  check_output_paths(c, "");
  std::map<std::string, std::int64_t> layer_counts;
  LayerModels layer_models;
  try {
    // Loaded here too, so that bad input is refused once, before N passes start.
    const auto inputs =
        expand_inputs(c.graphs, options.archive, import_options_from(c.dims), &layer_counts, &layer_models);
    if (inputs.inputs.empty()) throw UsageError("no graph files found in the -g arguments");
    if (!c.quiet) print_run_header(options, inputs.inputs.size());
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {
    fmt::print(std::cerr, "dnnbench: {}\n", e.what());
    return kExitError;
  }
  std::optional<std::filesystem::path> temporary;
  std::string base = !c.output.empty() ? c.output : c.journal;
  if (base.empty()) {
    std::string pattern = (std::filesystem::temp_directory_path() / "dnnbench-repeat-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      fmt::print(std::cerr, "dnnbench: --repeat: cannot make a temporary folder for the passes\n");
      return kExitError;
    }
    temporary = pattern;
    base = (*temporary / "run").string();
  }
  if (const auto busy = busy_machine_warning(); !busy.empty())
    fmt::print(std::cerr, "dnnbench: warning: {}\n", busy);
  install_stop_signal_handlers();
  RepeatPassRequest request;
  request.run_arguments = run_arguments(command_line);
  request.base = base;
  request.passes = static_cast<int>(options.repeat);
  request.resume = c.resume;
  if (!c.quiet) request.note = [](const std::string& line) { fmt::print(std::cerr, "dnnbench: {}\n", line); };
  const auto outcomes = run_repeat_passes(request);
  std::vector<PassSuite> passes;
  RunRecord record;
  record.repeat_passes.emplace().count = request.passes;
  auto& warnings = record.warnings;
  bool complete = static_cast<int>(outcomes.size()) == request.passes;
  for (const auto& pass : outcomes) {
    complete = complete && pass.complete;
    if (!pass.problem.empty()) warnings.push_back(pass.problem);
    RunRecord::Pass p;
    p.pass = pass.pass;
    if (pass.suite && pass.suite->pid >= 0) p.pid = pass.suite->pid;
    if (!temporary) p.results = pass.results_path, p.journal = pass.journal_path;
    p.reused = pass.reused;
    p.complete = pass.complete;
    p.from_journal = pass.from_journal;
    p.elapsed_s = pass.elapsed_s;
    if (pass.child) p.end = pass.child->describe();
    record.repeat_passes->passes.push_back(std::move(p));
    if (pass.suite) passes.push_back(*pass.suite);
  }
  for (const auto& warning : warnings) fmt::print(std::cerr, "dnnbench: warning: {}\n", warning);
  if (temporary) {
    std::error_code ec;
    std::filesystem::remove_all(*temporary, ec);
  }
  if (passes.empty()) {
    fmt::print(std::cerr, "dnnbench: --repeat: no pass produced results\n");
    // A pass refused as a usage error (exit 2) says so the same way.
    for (const auto& pass : outcomes)
      if (pass.child && pass.child->end == ChildOutcome::End::exited && pass.child->exit_status == kExitUsage)
        return kExitUsage;
    return stop_signal() != 0 ? 128 + stop_signal() : kExitError;
  }
  auto suite = merge_pass_suites(passes);
  suite.complete = complete && stop_signal() == 0;
  suite.stop_signal = stop_signal();
  if (!c.quiet)
    for (const auto& graph : suite.graphs)
      if (!graph.filtered && !graph.duplicate_of) print_graph_table(std::cout, graph);
  record.host_conditions = host_load.finish(cpu_threads_used());
  record.timing = run_timing(run_start, run_clock);
  // Each pass's own isolation and journal are in its results; the merged run has none of its own.
  record.isolation = isolation_from_metadata(passes.front().suite.metadata);
  suite.metadata = collect_metadata(command_line, options);
  write_run_record(record, suite.metadata);
  attach_peaks(suite);
  suite.layer_models = std::move(layer_models);
  if (const auto code = write_run_outputs(c, suite, layer_counts); code != 0) return code;
  // A pass that died leaves rows unmeasured that its merged result cannot show as error rows.
  const int code = exit_code_for(suite);
  return code == 0 && !warnings.empty() ? kExitError : code;
}

std::vector<std::string> run_arguments(const std::vector<std::string>& command_line) {
  auto first = command_line.begin() + (command_line.empty() ? 0 : 1);
  if (first != command_line.end() && *first == "run") ++first;
  return {first, command_line.end()};
}

void resolve_run_options(RunCommand& c) {
  const auto recipe = c.config.empty() ? std::nullopt : std::optional(read_recipe(c.config));
  check_option_conflicts(c, c.binder->apply(c, recipe ? &*recipe : nullptr));
  if (c.graphs.empty())
    throw UsageError("no graphs: give -g FILE_OR_FOLDER (or `graphs` in the --config recipe)");
  auto& options = c.options;
  if (c.repeat_pass > 0) {
    // A pass of `--repeat N` (isolate/repeat_passes.hpp): a plain run. The parent repeats, and
    // writes the CSV, the tuning records and any profile from the merged result.
    options.repeat = 1;
    c.csv.clear();
    c.export_plans.clear();
    c.profile.clear();
  }
  apply_fp32_math_environment(options.fp32_math);  // before the first provider starts
  options.providers = resolve_providers(c);
  options.engines = c.engines;
  options.skip_engines = c.skip_engines;
  options.ops = c.ops;
  options.dry_run = c.dry_run;
  options.graph_arguments = c.graphs;
  if (!c.output.empty()) options.output_path = c.output;
  check_providers_exist(options.providers);
  for (const auto& choice : options.engine_matrix) check_providers_exist({choice.provider});
  if (const auto message = unknown_op_message(options.ops); !message.empty()) throw UsageError(message);
  if (options.oracle.aa_self_check) options.oracle.enabled = true;
  options.measure.host_sync_threads = cpu_threads_used();
  if (!c.profile_child_plan.empty()) options.profile_child_plan = c.profile_child_plan;
  if (!c.export_plans.empty() && !options.oracle.enabled)
    throw UsageError("--export-plans needs --oracle: a tuning record is what the oracle measured");
  if (!c.plans_from.empty()) {
    try {
      options.plans_from = std::make_shared<const TuningDb>(TuningDb::read(c.plans_from));
    } catch (const std::exception& e) {
      throw UsageError(fmt::format("--plans-from: {}", e.what()));
    }
  }
}

int execute_run(RunCommand& c, const std::vector<std::string>& command_line) {
  const auto run_start = utc_timestamp();
  const auto run_clock = std::chrono::steady_clock::now();
  const HostLoadProbe host_load;  // what other work did to the machine while this run measured
  resolve_run_options(c);
  auto& options = c.options;
  std::optional<ProfileRequest> profile;
  if (!c.profile.empty() && launcher_world_size() > 1)
    throw UsageError(
        "--profile re-runs each row under ncu after the run, one child at a time on this machine's GPU, "
        "and is not available under mpirun: profile the rows in a run without it (docs/profiling.md)");
  if (!c.profile.empty()) {
    try {
      profile = parse_profile_spec(c.profile);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    const char* path_env = std::getenv("PATH");
    if (const auto refusal = profiling_refusal(*profile, path_env ? path_env : ""); !refusal.empty())
      throw UsageError(refusal);
    profile->directory = c.profile_dir;
    if (c.timeout_s > 0) profile->timeout_s = c.timeout_s;
  }
  if (const auto code = execute_run_under_mpi(c, command_line)) return *code;
  // Under MPI (above) --repeat stays in process: each row's plan in N fresh plan instances.
  if (options.repeat >= 2 && c.repeat_pass == 0 && !options.dry_run)
    return execute_repeat_passes(c, command_line, host_load, run_start, run_clock);

  const auto isolation = resolve_isolation(c);
  const auto fingerprint = options_fingerprint(options);
  const auto journal_file = journal_path(c);
  check_output_paths(c, journal_file);
  const auto resume = c.resume ? read_resume_journal(journal_file, fingerprint) : std::nullopt;
  const auto import_options = import_options_from(c.dims);
  GraphInputs inputs;  // owns the folders archives and imports are extracted into, until the run is over
  std::map<std::string, std::int64_t> layer_counts;  // of imported layers: the model summary
  LayerModels layer_models;                          // and the workload report
  try {
    inputs = expand_inputs(c.graphs, options.archive, import_options, &layer_counts, &layer_models);
  } catch (const std::exception& e) {
    fmt::print(std::cerr, "dnnbench: {}\n", e.what());
    return kExitError;
  }
  if (inputs.inputs.empty()) throw UsageError("no graph files found in the -g arguments");
  const auto shard = shard_inputs(c, inputs.inputs);

  if (!c.quiet) print_run_header(options, inputs.inputs.size());
  auto warnings = oracle_warnings(options);
  if (const auto problem =
          calibration_file_problem(options.calibration_file.value_or(default_calibration_path()),
                                   options.calibration_file.has_value());
      !problem.empty())
    warnings.push_back(problem);
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
  std::unique_ptr<IsolatedExecutor> isolated;
  // Isolated children always have a deadline: the user's, or one derived from the caps.
  const double timeout_s = c.timeout_s > 0 ? c.timeout_s : default_child_timeout_s(options, isolation);
  if (isolation != IsolationMode::none && !options.dry_run)
    isolated = make_isolated_executor(isolation, timeout_s, run_arguments(command_line));
  install_stop_signal_handlers();
  // Started after the isolated executor: its worker compiles nothing until its first graph.
  std::optional<BuildAheadChildren> build_ahead;
  if (!options.dry_run)
    build_ahead.emplace(options, run_arguments(command_line),
                        c.compile_ahead >= 0 ? c.compile_ahead : default_compile_ahead_children());
  auto suite = run_suite(inputs.inputs, options, fanout,
                         {isolated.get(), resume ? &*resume : nullptr, shard ? &*shard : nullptr});
  const std::size_t children_started = isolated ? isolated->children_started() : 0;
  isolated.reset();  // its worker (a GPU context, loaded libraries) ends before profiling starts
  const std::size_t build_ahead_children = build_ahead ? build_ahead->started() : 0;
  build_ahead.reset();
  observer.finish();
  if (profile && !options.dry_run) {
    std::map<std::string, std::filesystem::path> graph_files;
    for (const auto& input : inputs.inputs) graph_files.emplace(input.path, input.file);
    profile_rows(suite, graph_files, options, *profile, c.quiet);
    if (c.verbose)
      for (const auto& graph : suite.graphs)
        for (const auto& row : graph.results)
          if (row.profile) {
            fmt::print(std::cout, "\n{} / {} / {} ({})\n", graph.graph_name, row.provider,
                       row.engine_id.value_or("-"), row.plan_name.value_or("-"));
            print_profile_details(std::cout, row);
          }
  }
  RunRecord record;
  record.host_conditions = host_load.finish(cpu_threads_used());
  if (shard) record.shard = record_shard(c, *shard, suite);
  record.warnings = warnings;
  if (c.repeat_pass > 0) record.repeat_pass = RunRecord::RepeatPassOf{c.repeat_pass, ::getpid()};
  // When it ran and how long the whole run took (loading, every row, isolation).
  record.timing = run_timing(run_start, run_clock);
  record.isolation.mode = std::string(isolation_mode_name(isolation));
  if (isolation != IsolationMode::none) {
    record.isolation.timeout_s = timeout_s;
    record.isolation.timeout_basis = c.timeout_s > 0 ? "--timeout-s" : "derived from the caps";
  }
  // How many isolated child processes the run started: with --isolate graph, 1 unless a worker
  // died, timed out or was retired after a failed row (docs/reliability.md); and how many compiled
  // runtime-compiled plans ahead of their rows (distribute/build_ahead.hpp).
  record.isolation.children_started = children_started;
  record.isolation.compile_ahead_children = build_ahead_children;
  if (!journal_file.empty()) record.journal = journal_file;
  if (resume) record.resumed_rows = resume->rows;
  if (auto note = cache_sensitive_note(suite.graphs); !note.empty() && !c.quiet)
    fmt::print(std::cerr, "dnnbench: note: {}\n", note);
  for (auto warning : {host_sync_warning(suite.graphs), core_state_warning(suite.graphs)})
    if (!warning.empty()) {
      fmt::print(std::cerr, "dnnbench: warning: {}\n", warning);
      record.warnings.push_back(std::move(warning));
    }
  if (!options.dry_run)
    for (const auto& id : engines_never_offered(suite, options.engines)) {
      auto warning = fmt::format(
          "--engine {}: no graph of the suite offers this engine (see `dnnbench list-engines`)", id);
      fmt::print(std::cerr, "dnnbench: warning: {}\n", warning);
      record.warnings.push_back(std::move(warning));
    }
  if (const int signal = stop_signal(); signal != 0)
    fmt::print(std::cerr, "dnnbench: stopped by signal {} ({}); writing what finished\n", signal,
               strsignal(signal));
  if (profile)
    record.profile = RunRecord::Profile{profile->tool, profile->sections, profile->directory,
                                        profile->tool_path, profile->executions};
  suite.metadata = collect_metadata(command_line, options);
  write_run_record(record, suite.metadata);
  attach_peaks(suite);
  suite.layer_models = std::move(layer_models);
  if (const auto code = write_run_outputs(c, suite, layer_counts); code != 0) return code;
  return exit_code_for(suite);  // 128 + the signal after a stop, as the JSON's exit_code says
}

int execute_list_engines(ListEnginesCommand& c) {
  c.settings.binder->apply(c.settings, nullptr);
  check_providers_exist(c.providers);
  std::vector<std::string> names = c.providers;
  if (names.empty()) names = default_provider_names();
  int status = kExitOk;
  // The inputs `run -g` takes, import sources included (converted as run converts them).
  const auto inputs = expand_inputs(c.graphs, ArchiveLimits{}, import_options_from(c.settings.dims));
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
      auto provider = make_provider(name, c.settings.options.provider_settings);
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
  // What this binary lacks, with CMake's reason: a user with a GPU who sees no cudnn line learns
  // why here, not by reading the configure output again.
  std::string_view not_built = providers_not_built();
  while (!not_built.empty()) {
    const auto end = std::min(not_built.find('\n'), not_built.size());
    const auto line = not_built.substr(0, end);
    const auto colon = line.find(": ");
    if (colon != std::string_view::npos)
      fmt::print("{:<10} not built: {}\n", line.substr(0, colon), line.substr(colon + 2));
    not_built.remove_prefix(std::min(end + 1, not_built.size()));
  }
  return kExitOk;
}

int execute_help(CLI::App& app, const std::string& command) {
  if (command.empty()) {
    // Not app.help(): that prints the help of the subcommand parsed, `help` itself.
    std::cout << app.get_formatter()->make_help(&app, app.get_name(), CLI::AppFormatMode::Normal);
    return kExitOk;
  }
  std::vector<std::string> names;
  for (const auto* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->get_group().empty()) continue;  // a hidden command (`_child`)
    if (sub->get_name() == command) {
      std::cout << sub->help(app.get_name());
      return kExitOk;
    }
    names.push_back(sub->get_name());
  }
  throw UsageError(
      fmt::format("help: no command '{}'; the commands are {}", command, fmt::join(names, ", ")));
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
