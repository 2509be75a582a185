#include "run/row_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "env/gpu_clocks.hpp"
#include "measure/host_timer.hpp"
#include "run/repeat.hpp"
#include "session/plan_session.hpp"
#include "tensor/npy.hpp"
#include "tune/oracle.hpp"
#include "tune/plans_from.hpp"

namespace dnnbench {
namespace {

void dump_outputs(const GraphData& data, const PlanBuffers& buffers, const RowResult& row,
                  const std::string& dir) {
  const auto& graph = data.graph();
  const auto folder = std::filesystem::path(dir) / data.dump_folder() / sanitize_for_path(row.provider) /
                      sanitize_for_path(row.engine_id.value_or("none"));
  for (auto uid : graph.output_uids()) {
    const auto& desc = graph.tensor(uid);
    write_npy(folder / (sanitize_for_path(desc.name) + ".npy"), buffers.host(uid).to_dense(), desc.dtype);
  }
}

// The figure `compare` judges (report/peaks.hpp's primary_stats): kernel time where there is one.
double primary_median(const RowResult& row) {
  return row.gpu_kernel_stats ? row.gpu_kernel_stats->median : row.host_stats->median;
}

}  // namespace

RowResult skipped_row(const GraphData* data, std::string_view provider, std::string reason) {
  RowResult row;
  row.provider = provider;
  row.status = RowStatus::skipped;
  row.skip_reason = std::move(reason);
  if (data) {
    row.analytical_flops = data->cost().flops;
    row.analytical_io_bytes = data->cost().min_bytes;
  }
  return row;
}

std::optional<std::string> fp32_math_of(const Graph& graph, const EngineInfo& engine) {
  const bool has_fp32 = std::any_of(graph.tensors.begin(), graph.tensors.end(),
                                    [](const TensorDesc& t) { return t.dtype == DataType::f32; });
  if (!has_fp32) return std::nullopt;
  return std::string(fp32_math_name(uses_tf32_math(engine) ? Fp32Math::tf32 : Fp32Math::strict));
}

std::string_view fp32_math_name(Fp32Math math) {
  return math == Fp32Math::tf32 ? "tf32" : "strict";
}

std::string_view reduced_precision_name(ReducedPrecision policy) {
  return policy == ReducedPrecision::skip ? "skip" : "allow";
}

RowResult run_row(GraphData& data, Provider& provider, Stream& stream, const EngineInfo& engine,
                  const RunOptions& options) {
  const auto& graph = data.graph();
  RowResult row;
  row.provider = provider.name();
  row.engine_id = engine.id;
  row.engine_name = engine.name;
  row.engine_notes = engine.notes;
  row.analytical_flops = data.cost().flops;
  row.analytical_io_bytes = data.cost().min_bytes;
  row.fp32_math = fp32_math_of(graph, engine);
  row.reduced_precision = uses_reduced_precision(engine);
  HostTimer row_timer, stage_timer;
  const char* stage = "heuristic";
  // Closes the stage that ran since the last call under `name`.
  auto lap = [&](const char* name) {
    row.stage_ms[name] += stage_timer.elapsed_ms();
    stage_timer.restart();
  };
  std::optional<PlanSpec> heuristic;
  // Held outside the try so that its teardown (freeing the plan, workspace and buffers: several ms
  // for large graphs or under a sanitizer) is timed as its own stage, not lost between stages.
  std::optional<PlanSession> held;
  try {
    heuristic = provider.heuristic_plan(graph, engine);
    row.plan_name = heuristic->name();
    row.plan_knobs = knob_pairs(*heuristic);

    stage = "build";
    auto& session = held.emplace(data, provider, stream, *heuristic);
    session.judge_outputs(OutputRules::of(engine, options));
    session.set_measure_options(options.measure);
    session.set_clock_source(gpu_clock_source(provider));
    row.cpu_build_time_ms = session.build_ms();
    row.plan_name = session.plan().name();
    row.workspace_bytes = static_cast<std::int64_t>(session.plan().workspace_bytes());
    row.bind_time_ms = session.bind_ms();
    row.plan_notes = session.plan().notes();
    if (const auto cached = session.plan().cache_use()) {
      row.plan_cache = cached->use;
      row.compile_time_ms = cached->compile_ms;
    }

    lap("plan");

    // The graph's reference, once per graph and kind: computed here (not inside the checked run)
    // so that a suite's time shows it apart from the per-row check.
    stage = "reference";
    data.reference(data.reference_kind_for(provider.device()));
    lap("reference");

    // Checked run: the first execution, on poisoned outputs, so unwritten elements fail.
    stage = "execute";
    row.correctness = session.checked_run();
    lap("check");

    stage = "warm-up";
    if (options.profile_child_plan) {
      // A profiled child (--profile): exactly the timed executions inside the capture range, so a
      // plain warm-up (the steady-state search would hand its samples to the measurement).
      if (row.plan_name != *options.profile_child_plan)
        throw std::runtime_error(fmt::format("the profiled child builds plan {}, not the row's plan {}",
                                             row.plan_name.value_or("?"), *options.profile_child_plan));
      session.warm_up(std::max<std::int64_t>(1, options.warmup));
    } else {
      session.warm_up_until_steady(options.warmup);
    }
    lap("warm-up");
    stage = "measure";
    auto rule = make_stopping_rule(options, session);
    if (options.profile_child_plan)
      stream.profiler_start(fmt::format("{}/{}/{}/{}", graph.name, row.provider, engine.id, *row.plan_name));
    auto m = session.measure(*rule, options.save_samples);
    if (options.profile_child_plan) stream.profiler_stop();
    lap("measure");
    // The warm-up's steady samples are the measurement's first samples: their time is measuring.
    row.stage_ms["warm-up"] -= session.reused_warmup_ms();
    row.stage_ms["measure"] += session.reused_warmup_ms();
    stage = "kernel activity";
    session.record_kernels(m);
    lap("kernel activity");
    stage = "other regime";
    session.measure_other_regime(m);
    lap("other regime");
    m.timing.fill = std::string(fill_kind_name(options.fill));
    row.kernels = m.kernels;
    row.kernel_sum_stats = m.kernel_sum;
    row.host_stats = m.host;
    if (m.has_kernel) row.gpu_kernel_stats = m.kernel;
    row.timing = m.timing;

    // Outputs after repeated executions must still be right (catches accumulation into the
    // output and state carried between executions).
    stage = "re-check";
    if (row.correctness->passed) {
      auto again = session.recheck_outputs();
      if (!again.passed) {
        for (auto& o : again.outputs)
          if (!o.passed) o.first_mismatch = "after repeated executions: " + o.first_mismatch;
        row.correctness = std::move(again);
      }
    }
    lap("re-check");
    if (options.dump_tensors_dir) dump_outputs(data, session.buffers(), row, *options.dump_tensors_dir);
    stage = "release";
    held.reset();
    lap("release");
    if (options.repeat > 1 && row.correctness->passed) {
      stage = "repeat";
      row.repeat = measure_repeats(data, provider, stream, *heuristic, options, primary_median(row));
      lap("repeat");
    }
  } catch (const Unsupported& e) {
    row.status = RowStatus::skipped;
    row.skip_reason = e.what();
  } catch (const std::exception& e) {
    row.status = RowStatus::error;
    row.error_message = fmt::format("{} failed: {}", stage, e.what());
  }
  held.reset();  // a row that ended in an exception: its teardown still counts in row_time_ms
  // The oracle runs after the OOTB pass and never changes its fields, status or exit code.
  if (options.oracle.enabled && row.status == RowStatus::success && heuristic) {
    stage_timer.restart();
    run_oracle(data, provider, stream, engine, *heuristic, options, row);
    lap("oracle");
  }
  // --plans-from: the stored plans of this row re-timed against today's heuristic plan.
  if (options.plans_from && row.status == RowStatus::success && heuristic) {
    stage_timer.restart();
    retime_stored_plans(data, provider, stream, engine, *heuristic, options, row);
    lap("plans-from");
  }
  row.row_time_ms = row_timer.elapsed_ms();
  return row;
}

}  // namespace dnnbench
