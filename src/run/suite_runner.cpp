#include "run/suite_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>
#include <stdexcept>

#include "env/gpu_clocks.hpp"
#include "env/memory_budget.hpp"
#include "graph/cost.hpp"
#include "graph/errors.hpp"
#include "graph/reader.hpp"
#include "graph/validate.hpp"
#include "measure/host_timer.hpp"
#include "providers/registry.hpp"
#include "run/graph_loader.hpp"
#include "run/journal.hpp"
#include "run/keep_warm.hpp"
#include "run/row_runner.hpp"
#include "session/graph_data.hpp"
#include "session/plan_session.hpp"
#include "sys/interrupt.hpp"
#include "tensor/npy.hpp"
#include "tune/oracle.hpp"

namespace dnnbench {
namespace {

// What the reports need to know of the graph besides its rows: the data type peaks are looked up
// for, and its op families.
void describe_graph(const Graph& graph, GraphResult& result) {
  if (const auto type = roofline_data_type(graph); type != DataType::unset)
    result.data_type = dtype_name(type);
  result.ops = op_families(graph);
}

struct ProviderSlot {
  std::unique_ptr<Provider> provider;
  std::unique_ptr<Stream> stream;
  // The row after which this process lost the provider's device ("graph / engine: error"); no
  // later row runs on it here (each would fail with the same sticky error, under other names).
  std::optional<std::string> lost_at;
};

// An `error` row of the provider, outside any engine's run.
RowResult error_row(const GraphData& data, std::string_view provider, std::string message) {
  auto row = skipped_row(&data, provider, "");
  row.status = RowStatus::error;
  row.skip_reason.reset();
  row.error_message = std::move(message);
  return row;
}

// A row that was not run because the device was lost earlier in this process.
RowResult device_lost_row(const GraphData& data, std::string_view provider, const std::string& lost_at) {
  return error_row(
      data, provider,
      fmt::format("not run: this process lost the device at {}; every later CUDA call in it fails "
                  "the same way (--isolate graph, the default with a GPU provider, runs each "
                  "graph in a process of its own)",
                  lost_at));
}

// After a row: when it lost the device, every provider on that device records where.
void note_device_loss(std::vector<ProviderSlot>& providers, const std::string& graph, const RowResult& row) {
  for (auto& slot : providers) {
    if (slot.lost_at) continue;
    if (const auto lost = slot.provider->device_lost())
      slot.lost_at = fmt::format("{} / {} {} ({})", graph, row.provider, row.engine_id.value_or("-"), *lost);
  }
}

std::vector<ProviderSlot> make_providers(const RunOptions& options) {
  std::vector<std::string> names = options.providers;
  if (names.empty()) names = default_provider_names();
  std::vector<ProviderSlot> slots;
  for (const auto& name : names) {
    auto provider = make_provider(name, options.provider_settings);
    if (!provider) throw std::invalid_argument(unknown_provider_message(name));
    auto stream = provider->make_stream();
    slots.push_back({std::move(provider), std::move(stream), std::nullopt});
  }
  return slots;
}

// The heater of the first provider whose rows are grouped (a device-timed one), in the sustained
// regime with --keep-warm (RunOptions::keep_warm); nullptr otherwise, or where its stream has none.
std::unique_ptr<KeepWarm> make_keep_warm(std::vector<ProviderSlot>& providers, const RunOptions& options) {
  if (!options.keep_warm || options.measure.regime != Regime::sustained) return nullptr;
  for (auto& slot : providers)
    if (slot.stream && groups_rows(*slot.stream, options))
      if (auto heater = slot.stream->make_heater())
        return std::make_unique<KeepWarm>(std::move(heater), gpu_clock_source(*slot.provider));
  return nullptr;
}

void dump_graph_tensors(GraphData& data, const std::string& dir) {
  const auto& graph = data.graph();
  const auto root = std::filesystem::path(dir) / data.dump_folder();
  for (const auto& [uid, tensor] : data.inputs())
    write_npy(root / "inputs" / (sanitize_for_path(tensor.desc().name) + ".npy"), tensor.to_dense(),
              tensor.desc().dtype);
  const auto& reference = data.reference();
  for (auto uid : graph.output_uids()) {
    const auto& desc = graph.tensor(uid);
    write_npy(root / "reference" / (sanitize_for_path(desc.name) + ".npy"), reference.at(uid), desc.dtype);
  }
}

// A new row of the graph, reported as it is added.
void add_row(GraphResult& result, RunObserver& observer, RowResult row) {
  result.results.push_back(std::move(row));
  observer.row_finished(result, result.results.back());
}

// One graph's rows over the providers, in three passes: each provider's engines (or why it has
// none: a row that says so), then the rows themselves, then what follows each provider's rows
// (those the device's loss kept from starting, the oracle's regret, refused and missing engines).
// The middle pass runs the rows of consecutive providers whose streams group rows (the GPU
// providers of this process's device) as one group: cuBLASLt's rows of a GEMM then follow cuDNN's
// with the device still loaded, where after the idle gap in which the host built their plans its
// first row at the power cap warmed up 1.2-1.4 s, and after another row's samples 0.35 s
// (bench/results/throughput-h200.json). Each row is still measured alone. The graph's rows are
// listed in provider order, as when each provider ran alone.
class GraphRows {
 public:
  GraphRows(GraphResult& result, GraphData& data, std::vector<ProviderSlot>& providers,
            const RunOptions& options, const FinishedRows& finished, std::size_t max_new_rows,
            RunObserver& observer, KeepWarm* keep_warm)
      : result_(result),
        data_(data),
        providers_(providers),
        options_(options),
        finished_(finished),
        max_new_rows_(max_new_rows),
        observer_(observer),
        keep_warm_(keep_warm) {}

  // False when a stop (or the row limit) ended it early.
  bool run() {
    std::vector<Pass> passes;
    for (auto& slot : providers_) passes.push_back(choose(slot));
    for (std::size_t p = 0; p < passes.size();) {
      auto end = p + 1;
      if (groups_rows(*passes[p].slot->stream, options_))
        while (end < passes.size() && groups_rows(*passes[end].slot->stream, options_)) ++end;
      if (!run_rows(passes, p, end)) return false;
      p = end;
    }
    // Every row so far (reported as it ran, or reused) moves into provider order; each provider's
    // are followed by what follows them.
    std::vector<RowResult> so_far = std::move(result_.results);
    std::vector<bool> moved(so_far.size(), false);
    result_.results.clear();
    for (auto& pass : passes) {
      const auto first_row = result_.results.size();
      for (std::size_t i = 0; i < so_far.size(); ++i)
        if (!moved[i] && so_far[i].provider == pass.slot->provider->name()) {
          result_.results.push_back(std::move(so_far[i]));
          moved[i] = true;
        }
      if (pass.choice) follow(pass, first_row);
    }
    return true;
  }

 private:
  // One provider's part of the graph: the engines it runs (none when it has a row saying why).
  struct Pass {
    ProviderSlot* slot = nullptr;
    std::optional<RowEngines> choice;
    std::vector<EngineInfo> offered, pending;  // pending: chosen and not reused from `finished`
    std::size_t started = 0;
  };

  void add(RowResult row) { add_row(result_, observer_, std::move(row)); }
  // A row reused from `finished` is added as it was; it is not reported again.
  bool reuse(std::string_view provider, const std::optional<std::string>& engine_id) {
    const auto* row = finished_.find(provider, engine_id);
    if (row) result_.results.push_back(*row);
    return row != nullptr;
  }

  Pass choose(ProviderSlot& slot) {
    Pass pass;
    pass.slot = &slot;
    auto& provider = *slot.provider;
    const auto& graph = data_.graph();
    if (slot.lost_at) {
      add(device_lost_row(data_, provider.name(), *slot.lost_at));
      return pass;
    }
    if (const auto refusal = device_budget_refusal(graph, options_, provider); !refusal.empty()) {
      add(skipped_row(&data_, provider.name(), refusal));
      return pass;
    }
    HostTimer engines_timer;
    // Charged to the graph however enumeration ends.
    struct Charge {
      HostTimer& timer;
      double& to;
      ~Charge() { to += timer.elapsed_ms(); }
    };
    try {
      Charge charge{engines_timer, result_.stage_ms["engines"]};
      pass.offered = provider.engines(graph);
    } catch (const Unsupported& e) {
      add(skipped_row(&data_, provider.name(), e.what()));
      return pass;
    } catch (const std::exception& e) {
      add(error_row(data_, provider.name(), fmt::format("engine enumeration failed: {}", e.what())));
      return pass;
    }
    pass.choice = row_engines(pass.offered, options_, provider.name(), result_.content_hash);
    for (const auto& engine : pass.choice->selection.engines)
      if (!reuse(provider.name(), engine.id)) pass.pending.push_back(engine);
    return pass;
  }

  // The pending rows of passes [first, end) as one row group. False when a stop or the row limit
  // halted it.
  bool run_rows(std::vector<Pass>& passes, std::size_t first, std::size_t end) {
    std::vector<GroupRow> rows;
    std::vector<Pass*> owner;  // each row's pass
    for (auto q = first; q < end; ++q)
      for (const auto& engine : passes[q].pending) {
        rows.push_back({*passes[q].slot->provider, *passes[q].slot->stream, engine});
        owner.push_back(&passes[q]);
      }
    const auto rows_before = new_rows_;
    std::size_t started = 0;
    bool halted = false;
    run_row_group(
        data_, rows, options_,
        [&](std::size_t r) {
          if (stop_requested() || (max_new_rows_ > 0 && rows_before + started >= max_new_rows_)) {
            halted = true;
            return false;
          }
          if (owner[r]->slot->lost_at) return false;
          observer_.row_started(result_, owner[r]->slot->provider->name(), rows[r].engine);
          ++started;
          ++owner[r]->started;
          return true;
        },
        [&](std::size_t r) {
          observer_.row_started(result_, owner[r]->slot->provider->name(), rows[r].engine);
        },
        [&](std::size_t r, RowResult row) {
          row.engine_label = owner[r]->choice->wanted.label_of(rows[r].engine);
          // After every row, not only failed ones: the oracle after a passing row can lose it too.
          note_device_loss(providers_, data_.graph().name, row);
          add(std::move(row));
          ++new_rows_;
        },
        keep_warm_);
    return !halted;
  }

  // What follows a provider's rows (from `first_row` of the graph's): the rows the device's loss
  // kept from starting, the oracle's regret, the refused and the missing engines.
  void follow(Pass& pass, std::size_t first_row) {
    auto& slot = *pass.slot;
    auto& provider = *slot.provider;
    const auto& graph = data_.graph();
    for (std::size_t i = pass.started; i < pass.pending.size(); ++i) {
      auto row = device_lost_row(data_, provider.name(), slot.lost_at.value_or(""));
      row.engine_id = pass.pending[i].id;
      row.engine_name = pass.pending[i].name;
      add(std::move(row));
    }
    if (options_.oracle.enabled && !options_.oracle.aa_self_check && !slot.lost_at) {
      std::vector<const RowResult*> rows;
      for (auto i = first_row; i < result_.results.size(); ++i) rows.push_back(&result_.results[i]);
      // The pick against the graph's best plan (paired, replicated): oracle time outside any row,
      // measured on a device the heater no longer loads.
      if (keep_warm_) keep_warm_->stop();
      HostTimer regret_timer;
      if (auto regret = graph_regret(data_, provider, *slot.stream, rows, options_))
        result_.regret.push_back(std::move(*regret));
      result_.stage_ms["regret"] += regret_timer.elapsed_ms();
    }
    for (const auto& [engine, reason] : pass.choice->refused) {
      if (reuse(provider.name(), engine.id)) continue;
      auto row = skipped_row(&data_, provider.name(), reason);
      row.engine_id = engine.id;
      row.engine_name = engine.name;
      row.engine_notes = engine.notes;
      row.fp32_math = fp32_math_of(graph, engine);
      row.reduced_precision = uses_reduced_precision(engine);
      add(std::move(row));
    }
    for (const auto& id : pass.choice->selection.missing) {
      auto row = skipped_row(&data_, provider.name(),
                             not_offered_reason(id, provider.not_offered_reason(graph, id)));
      row.engine_id = id;
      add(std::move(row));
    }
    if (pass.offered.empty())
      add(skipped_row(&data_, provider.name(), "the provider offers no engine for this graph"));
  }

  GraphResult& result_;
  GraphData& data_;
  std::vector<ProviderSlot>& providers_;
  const RunOptions& options_;
  const FinishedRows& finished_;
  std::size_t max_new_rows_;
  RunObserver& observer_;
  KeepWarm* keep_warm_;
  std::size_t new_rows_ = 0;
};

// Returns false when a stop (or the row limit) ended it early.
bool run_graph(GraphResult& result, const Graph& graph, std::vector<ProviderSlot>& providers,
               const RunOptions& options, const FinishedRows& finished, std::size_t max_new_rows,
               RunObserver& observer, KeepWarm* keep_warm) {
  HostTimer inputs_timer;
  GraphData data(graph, options.seed, options.gpu_reference, options.fill);
  result.stage_ms["inputs"] += inputs_timer.elapsed_ms();
  if (result.dump_folder) data.set_dump_folder(*result.dump_folder);
  if (result.content_hash) data.set_content_hash(*result.content_hash);
  result.analytical_flops = data.cost().flops;
  result.analytical_io_bytes = data.cost().min_bytes;

  const auto unsupported = graph.unsupported_types();
  if (!unsupported.empty()) {
    for (auto& slot : providers)
      add_row(result, observer,
              skipped_row(&data, slot.provider->name(), "unsupported op " + unsupported.front()));
    return true;
  }
  if (options.dump_tensors_dir) {
    try {
      dump_graph_tensors(data, *options.dump_tensors_dir);
    } catch (const std::exception& e) {
      result.error_message = fmt::format("--dump-tensors: {}", e.what());
    }
  }
  return GraphRows(result, data, providers, options, finished, max_new_rows, observer, keep_warm).run();
}

class InProcessExecutor final : public GraphExecutor {
 public:
  InProcessExecutor(const RunOptions& options, std::size_t max_new_rows)
      : options_(options), max_new_rows_(max_new_rows) {}
  bool run(const GraphInput&, const Graph& graph, GraphResult& result, const FinishedRows& finished,
           RunObserver& observer) override {
    // Made on first use, so that a suite with nothing to run (all reused, --dry-run) starts no library.
    if (providers_.empty()) {
      HostTimer timer;
      providers_ = make_providers(options_);
      keep_warm_ = make_keep_warm(providers_, options_);
      result.stage_ms["providers"] += timer.elapsed_ms();
    }
    try {
      return run_graph(result, graph, providers_, options_, finished, max_new_rows_, observer,
                       keep_warm_.get());
    } catch (const std::exception& e) {  // failures outside any row (fills, dumps)
      result.ok = false;
      result.error_message = fmt::format("graph {}: {}", result.graph_name, e.what());
      return true;
    }
  }
  bool device_lost() const override {
    return std::any_of(providers_.begin(), providers_.end(),
                       [](const ProviderSlot& s) { return s.lost_at.has_value(); });
  }

 private:
  const RunOptions& options_;
  std::size_t max_new_rows_;
  std::vector<ProviderSlot> providers_;
  std::unique_ptr<KeepWarm> keep_warm_;  // after providers_: stops the heater before they go
};

// Graph folders under --dump-tensors: the graph's name, and NAME-2, NAME-3, ... for later graphs
// of the same name, in suite order (so a resumed run picks the same ones).
class DumpFolders {
 public:
  std::string claim(const std::string& graph_name) {
    const auto base = sanitize_for_path(graph_name);
    std::string folder = base;
    for (int n = 2; !used_.insert(folder).second; ++n) folder = fmt::format("{}-{}", base, n);
    return folder;
  }

 private:
  std::set<std::string> used_;
};

}  // namespace

void ObserverFanout::graph_started(std::size_t index, std::size_t count, const std::string& path) {
  for (auto* o : observers_) o->graph_started(index, count, path);
}
void ObserverFanout::row_started(const GraphResult& graph, std::string_view provider,
                                 const EngineInfo& engine) {
  for (auto* o : observers_) o->row_started(graph, provider, engine);
}
void ObserverFanout::row_finished(const GraphResult& graph, const RowResult& row) {
  for (auto* o : observers_) o->row_finished(graph, row);
}
void ObserverFanout::graph_finished(const GraphResult& graph) {
  for (auto* o : observers_) o->graph_finished(graph);
}

std::string FinishedRows::key(std::string_view provider, const std::optional<std::string>& engine_id) {
  return fmt::format("{}\n{}", provider, engine_id.value_or(""));
}

void FinishedRows::add(RowResult row) {
  auto k = key(row.provider, row.engine_id);
  rows_.insert_or_assign(std::move(k), std::move(row));
}

const RowResult* FinishedRows::find(std::string_view provider,
                                    const std::optional<std::string>& engine_id) const {
  const auto it = rows_.find(key(provider, engine_id));
  return it == rows_.end() ? nullptr : &it->second;
}

const RowResult* FinishedRows::find_key(const std::string& k) const {
  const auto it = rows_.find(k);
  return it == rows_.end() ? nullptr : &it->second;
}

std::unique_ptr<GraphExecutor> make_in_process_executor(const RunOptions& options, std::size_t max_new_rows) {
  return std::make_unique<InProcessExecutor>(options, max_new_rows);
}

std::vector<std::string> engines_never_offered(const SuiteResult& suite,
                                               const std::vector<std::string>& wanted) {
  std::vector<std::string> never;
  for (const auto& id : wanted) {
    bool offered = false;
    for (const auto& graph : suite.graphs)
      for (const auto& row : graph.results)
        offered = offered || ((row.engine_id == id || row.engine_name == id) &&
                              !(row.skip_reason && is_not_offered(*row.skip_reason, id)));
    if (!offered) never.push_back(id);
  }
  return never;
}

SuiteResult run_suite(const std::vector<GraphInput>& inputs, const RunOptions& options, RunObserver& observer,
                      SuiteSetup setup) {
  // Unknown provider names are a usage error before anything runs, whichever executor runs rows.
  for (const auto& name : options.providers)
    if (const auto message = unknown_provider_message(name); !message.empty())
      throw std::invalid_argument(message);
  std::unique_ptr<GraphExecutor> in_process;
  if (!setup.executor) {
    in_process = make_in_process_executor(options);
    setup.executor = in_process.get();
  }
  SuiteResult suite;
  // A stop asked for at any point, even during the last row, leaves the run incomplete: the
  // user stopped it, and its exit code says so.
  const auto stopped = [&suite]() -> SuiteResult& {
    suite.stop_signal = stop_signal();
    return suite;
  };
  GraphLoader loader(options);
  DumpFolders dump_folders;
  const FinishedRows none;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (stop_requested()) return stopped();
    if (setup.selected && !(*setup.selected)[i]) {
      GraphResult elsewhere;
      loader.load(inputs[i], elsewhere);
      continue;
    }
    observer.graph_started(i, inputs.size(), inputs[i].path);
    HostTimer wall;
    GraphResult result;
    const auto graph = loader.load(inputs[i], result);
    if (graph && options.dump_tensors_dir) result.dump_folder = dump_folders.claim(graph->name);
    const auto* earlier = setup.resume ? setup.resume->find(result.graph_path, result.content_hash) : nullptr;
    if (graph && earlier && earlier->finished) {
      result = *earlier->finished;
    } else if (graph && !options.dry_run) {
      const bool finished =
          setup.executor->run(inputs[i], *graph, result, earlier ? earlier->rows : none, observer);
      result.wall_ms = wall.elapsed_ms();
      if (!finished) {
        describe_graph(*graph, result);
        result.interrupted = true;  // cut short by a stop: kept, not reported finished
        suite.graphs.push_back(std::move(result));
        return stopped();
      }
    }
    if (graph) describe_graph(*graph, result);
    suite.graphs.push_back(std::move(result));
    observer.graph_finished(suite.graphs.back());
  }
  if (stop_requested()) return stopped();
  suite.complete = true;
  return suite;
}

}  // namespace dnnbench
