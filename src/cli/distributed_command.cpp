#include "cli/distributed_command.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <unistd.h>

#include <fstream>
#include <iostream>

#include "cli/import_command.hpp"
#include "distribute/distributed_run.hpp"
#include "distribute/distribution.hpp"
#include "env/metadata.hpp"
#include "env/run_record.hpp"
#include "graph/cost.hpp"
#include "input/import_inputs.hpp"
#include "report/console_report.hpp"
#include "report/json_report.hpp"
#include "report/merge.hpp"
#include "report/peaks.hpp"
#include "run/graph_loader.hpp"
#include "sys/host_name.hpp"
#include "sys/interrupt.hpp"
#include "tune/oracle.hpp"

namespace dnnbench {

std::optional<int> execute_run_under_mpi(RunCommand& c, const std::vector<std::string>& command_line) {
  if (launcher_world_size() <= 1) return std::nullopt;
  if (!c.shard.empty())
    throw UsageError("--shard splits a suite without MPI; under mpirun the ranks share the suite already");
  if (!mpi_support_built())
    throw UsageError(fmt::format(
        "started by an MPI launcher with {} ranks, but this dnnbench was built without MPI support: every "
        "rank would run the whole suite. Install libopenmpi-dev and rebuild (docs/distributed.md)",
        launcher_world_size()));
  auto& options = c.options;
  GraphInputs inputs;
  std::map<std::string, std::int64_t> layer_counts;  // of imported layers: the model summary
  LayerModels layer_models;                          // and the workload report
  try {
    // As without MPI: model files and command-line lists are converted on every rank alike.
    inputs =
        expand_inputs(c.graphs, options.archive, import_options_from(c.dims), &layer_counts, &layer_models);
  } catch (const std::exception& e) {
    // Not fatal here: this rank's inputs then differ from the others', and rank 0 refuses the run.
    fmt::print(std::cerr, "dnnbench: {}\n", e.what());
  }
  std::unique_ptr<Transport> transport;
  try {
    transport = open_mpi_transport();
  } catch (const std::exception& e) {
    fmt::print(std::cerr, "dnnbench: {}\n", e.what());
    return kExitError;
  }
  install_stop_signal_handlers();
  const bool root = transport->rank() == 0;
  std::unique_ptr<RunObserver> console;
  if (root) console = make_run_console(c);

  DistributedRequest request;
  request.options = &options;
  request.inputs = inputs.inputs;
  request.run_arguments = run_arguments(command_line);
  request.journal = run_journal_path(c);
  request.resume = c.resume;
  request.isolation = options.dry_run ? IsolationMode::none : run_isolation(c);
  if (c.timeout_s > 0) request.timeout_s = c.timeout_s;
  request.allow_mixed = c.allow_mixed_ranks;
  request.allow_shared_device = c.allow_shared_device;
  request.rank_timeout_s = c.rank_timeout_s;
  request.output = c.output;
  request.observer = console.get();
  const auto isolation = request.isolation;
  request.metadata = [&] {
    RunRecord record;
    record.warnings = oracle_warnings(options);
    record.isolation.mode = std::string(isolation_mode_name(isolation));
    if (c.timeout_s > 0)
      record.isolation.timeout_s = c.timeout_s, record.isolation.timeout_basis = "--timeout-s";
    if (!request.journal.empty()) record.journal = request.journal;
    auto meta = collect_metadata(command_line, options);
    write_run_record(record, meta);
    return meta;
  };
  auto outcome = run_distributed(*transport, request);
  if (!outcome.message.empty()) fmt::print(std::cerr, "dnnbench: {}\n", outcome.message);
  if (!root || outcome.exit_code == kExitUsage) {
    transport->set_exit_code(outcome.exit_code);
    return outcome.exit_code;
  }
  if (const int signal = stop_signal(); signal != 0)
    fmt::print(std::cerr, "dnnbench: stopped by signal {} ({}); writing what finished\n", signal,
               strsignal(signal));
  // The ranks' devices are alike unless --allow-mixed-ranks: rank 0's then describe every row.
  if (!c.allow_mixed_ranks) attach_peaks(outcome.suite);
  outcome.suite.layer_models = std::move(layer_models);
  const int written = write_run_outputs(c, outcome.suite, layer_counts);
  std::cout.flush();
  const int code = written != 0 ? written : outcome.exit_code;
  transport->set_exit_code(code);
  return code;
}

std::optional<std::vector<bool>> shard_inputs(const RunCommand& c, const std::vector<GraphInput>& inputs) {
  if (c.shard.empty()) return std::nullopt;
  std::string error;
  const auto spec = parse_shard(c.shard, error);
  if (!spec) throw UsageError(error);
  // Costs from the graphs alone (no engine counts): they depend on the machine's libraries, and
  // every shard, wherever it runs, must make the same split.
  GraphLoader loader(c.options);
  std::vector<double> costs;
  for (const auto& input : inputs) {
    GraphResult loaded;
    const auto graph = loader.load(input, loaded);
    costs.push_back(graph ? estimated_cost(graph_cost(*graph), 1) : 0.0);
  }
  return shard_selection(costs, *spec);
}

RunRecord::Shard record_shard(const RunCommand& c, const std::vector<bool>& selected, SuiteResult& suite) {
  std::string error;
  const auto spec = parse_shard(c.shard, error);
  std::vector<std::size_t> indices;
  for (std::size_t i = 0; i < selected.size(); ++i)
    if (selected[i]) indices.push_back(i);
  // Graphs cut short by a stop are not in the results: the first ones of `indices` are.
  indices.resize(std::min(indices.size(), suite.graphs.size()));
  const MeasuredBy me{std::nullopt, this_host_name()};
  for (auto& graph : suite.graphs)
    for (auto& row : graph.results)
      if (!row.measured_by) row.measured_by = me;
  return {spec->index, spec->count, selected.size(), std::move(indices)};
}

void add_merge_options(CLI::App& app, MergeCommand& c) {
  app.add_option("files", c.files, "Results files (JSON) of the parts")->required();
  app.add_option("-o,--output", c.output, "Write the merged results here")->required();
}

int execute_merge(const MergeCommand& c) {
  std::vector<MergeInput> inputs;
  for (const auto& path : c.files) {
    std::ifstream file(path);
    if (!file) {
      fmt::print(std::cerr, "dnnbench: merge: cannot read {}\n", path);
      return kExitError;
    }
    auto doc = nlohmann::json::parse(file, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) {
      fmt::print(std::cerr, "dnnbench: merge: {} is not JSON\n", path);
      return kExitError;
    }
    inputs.push_back({path, std::move(doc)});
  }
  MergeOutcome merged;
  try {
    merged = merge_results(inputs);
    write_json_file(c.output, suite_to_json(merged.suite));
  } catch (const std::exception& e) {
    fmt::print(std::cerr, "dnnbench: merge: {}\n", e.what());
    return kExitError;
  }
  for (const auto& warning : merged.warnings)
    fmt::print(std::cerr, "dnnbench: merge: warning: {}\n", warning);
  const auto summary = merged.suite.summary();
  fmt::print(std::cout, "Merged {} file{}: {} graphs, {} rows{} -> {}\n", inputs.size(),
             inputs.size() == 1 ? "" : "s", summary.graphs, summary.rows,
             merged.suite.complete ? "" : " (incomplete)", c.output);
  return kExitOk;
}

}  // namespace dnnbench
