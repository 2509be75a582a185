#include "run/row_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "env/gpu_clocks.hpp"
#include "measure/host_timer.hpp"
#include "run/keep_warm.hpp"
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

namespace {

// One row's pass in four steps, so that a group of rows can run each step for all of them before
// the next (run_row_group): prepare (plan, reference, checked run: host work), measure (warm-up,
// samples, kernel record: the device busy), finish (paced figure, re-check, release, repeat),
// tune (oracle, --plans-from). Whatever goes wrong in a step becomes the row's status; later
// steps of the OOTB pass are skipped.
class RowRun {
 public:
  RowRun(GraphData& data, Provider& provider, Stream& stream, const EngineInfo& engine,
         const RunOptions& options)
      : data_(data), provider_(provider), stream_(stream), engine_(engine), options_(options) {
    row_.provider = provider.name();
    row_.engine_id = engine.id;
    row_.engine_name = engine.name;
    row_.engine_notes = engine.notes;
    row_.analytical_flops = data.cost().flops;
    row_.analytical_io_bytes = data.cost().min_bytes;
    row_.fp32_math = fp32_math_of(data.graph(), engine);
    row_.reduced_precision = uses_reduced_precision(engine);
  }

  void prepare() {
    step([&] {
      const auto& graph = data_.graph();
      heuristic_ = provider_.heuristic_plan(graph, engine_);
      row_.plan_name = heuristic_->name();
      row_.plan_knobs = knob_pairs(*heuristic_);

      stage_ = "build";
      auto& session = session_.emplace(data_, provider_, stream_, *heuristic_);
      session.judge_outputs(OutputRules::of(engine_, options_));
      session.set_measure_options(options_.measure);
      session.set_clock_source(gpu_clock_source(provider_));
      row_.cpu_build_time_ms = session.build_ms();
      row_.plan_name = session.plan().name();
      row_.workspace_bytes = static_cast<std::int64_t>(session.plan().workspace_bytes());
      row_.bind_time_ms = session.bind_ms();
      row_.plan_notes = session.plan().notes();
      if (const auto cached = session.plan().cache_use()) {
        row_.plan_cache = cached->use;
        row_.compile_time_ms = cached->compile_ms;
      }
      lap("plan");

      // The graph's reference, once per graph and kind: computed here (not inside the checked run)
      // so that a suite's time shows it apart from the per-row check.
      stage_ = "reference";
      data_.reference(data_.reference_kind_for(provider_.device()));
      lap("reference");

      // Checked run: the first execution, on poisoned outputs, so unwritten elements fail.
      stage_ = "execute";
      row_.correctness = session.checked_run();
      lap("check");
    });
  }

  // `device_loaded`: the row before it in the group measured up to this one's warm-up, or the
  // heater held the device loaded until it (PlanSession::warm_up_until_steady); `kept_warm`: what
  // the heater did, recorded in the row.
  void measure(bool device_loaded = false,
               const std::optional<TimingInfo::KeptWarm>& kept_warm = std::nullopt) {
    step([&] {
      auto& session = *session_;
      const auto& graph = data_.graph();
      stage_ = "warm-up";
      if (options_.profile_child_plan) {
        // A profiled child (--profile): exactly the timed executions inside the capture range, so a
        // plain warm-up (the steady-state search would hand its samples to the measurement).
        if (row_.plan_name != *options_.profile_child_plan)
          throw std::runtime_error(fmt::format("the profiled child builds plan {}, not the row's plan {}",
                                               row_.plan_name.value_or("?"), *options_.profile_child_plan));
        session.warm_up(std::max<std::int64_t>(1, options_.warmup));
      } else {
        session.warm_up_until_steady(options_.warmup, device_loaded);
      }
      lap("warm-up");
      stage_ = "measure";
      auto rule = make_stopping_rule(options_, session);
      if (options_.profile_child_plan)
        stream_.profiler_start(
            fmt::format("{}/{}/{}/{}", graph.name, row_.provider, engine_.id, *row_.plan_name));
      measurement_ = session.measure(*rule, options_.save_samples);
      measurement_->timing.kept_warm = kept_warm;
      capped_ = session.warmup_capped() && options_.measure.regime == Regime::sustained;
      if (options_.profile_child_plan) stream_.profiler_stop();
      lap("measure");
      // The warm-up's steady samples are the measurement's first samples: their time is measuring.
      row_.stage_ms["warm-up"] -= session.reused_warmup_ms();
      row_.stage_ms["measure"] += session.reused_warmup_ms();
      stage_ = "kernel activity";
      session.record_kernels(*measurement_);
      lap("kernel activity");
    });
  }

  void finish() {
    step([&] {
      auto& session = *session_;
      auto& m = *measurement_;
      stage_ = "other regime";
      session.measure_other_regime(m);
      lap("other regime");
      m.timing.fill = std::string(fill_kind_name(options_.fill));
      row_.kernels = m.kernels;
      row_.kernel_sum_stats = m.kernel_sum;
      row_.host_stats = m.host;
      if (m.has_kernel) row_.gpu_kernel_stats = m.kernel;
      row_.timing = m.timing;

      // Outputs after repeated executions must still be right (catches accumulation into the
      // output and state carried between executions).
      stage_ = "re-check";
      if (row_.correctness->passed) {
        auto again = session.recheck_outputs();
        if (!again.passed) {
          for (auto& o : again.outputs)
            if (!o.passed) o.first_mismatch = "after repeated executions: " + o.first_mismatch;
          row_.correctness = std::move(again);
        }
      }
      lap("re-check");
      if (options_.dump_tensors_dir) dump_outputs(data_, session.buffers(), row_, *options_.dump_tensors_dir);
      stage_ = "release";
      session_.reset();
      lap("release");
      if (options_.repeat > 1 && row_.correctness->passed) {
        stage_ = "repeat";
        row_.repeat = measure_repeats(data_, provider_, stream_, *heuristic_, options_, primary_median(row_));
        lap("repeat");
      }
    });
    // A row that ended in an exception: its teardown still counts in row_time_ms.
    HostTimer teardown;
    session_.reset();
    row_time_ms_ += teardown.elapsed_ms();
  }

  // The oracle and --plans-from, after the OOTB pass (and after a group's other rows released
  // their plans: the sweep builds many).
  RowResult tune() {
    HostTimer after;
    // The oracle runs after the OOTB pass and never changes its fields, status or exit code.
    if (options_.oracle.enabled && row_.status == RowStatus::success && heuristic_) {
      stage_timer_.restart();
      run_oracle(data_, provider_, stream_, engine_, *heuristic_, options_, row_);
      lap("oracle");
    }
    // --plans-from: the stored plans of this row re-timed against today's heuristic plan.
    if (options_.plans_from && row_.status == RowStatus::success && heuristic_) {
      stage_timer_.restart();
      retime_stored_plans(data_, provider_, stream_, engine_, *heuristic_, options_, row_);
      lap("plans-from");
    }
    row_time_ms_ += after.elapsed_ms();
    row_.row_time_ms = row_time_ms_;
    return std::move(row_);
  }

  // Whether the row has its measurement (it was not skipped or failed before one).
  bool measured() const { return measurement_.has_value(); }
  // Whether it measured in the sustained regime held at the power cap.
  bool capped() const { return capped_; }
  // The device bytes this row holds while it waits for the next step (its plan's buffers and
  // workspace); 0 once released.
  std::int64_t held_bytes() const { return session_ ? session_->held_bytes() : 0; }

 private:
  // Runs `body` unless an earlier step failed; its time counts in the row's time.
  template <class Body>
  void step(Body body) {
    HostTimer timer;
    stage_timer_.restart();
    if (!failed_) {
      try {
        body();
      } catch (const Unsupported& e) {
        row_.status = RowStatus::skipped;
        row_.skip_reason = e.what();
        failed_ = true;
      } catch (const std::exception& e) {
        row_.status = RowStatus::error;
        row_.error_message = fmt::format("{} failed: {}", stage_, e.what());
        failed_ = true;
      }
    }
    row_time_ms_ += timer.elapsed_ms();
  }
  // Closes the stage that ran since the last call under `name`.
  void lap(const char* name) {
    row_.stage_ms[name] += stage_timer_.elapsed_ms();
    stage_timer_.restart();
  }

  GraphData& data_;
  Provider& provider_;
  Stream& stream_;
  const EngineInfo& engine_;
  const RunOptions& options_;
  RowResult row_;
  std::optional<PlanSpec> heuristic_;
  std::optional<PlanSession> session_;
  std::optional<Measurement> measurement_;
  const char* stage_ = "heuristic";
  bool failed_ = false;
  bool capped_ = false;
  HostTimer stage_timer_;
  double row_time_ms_ = 0;
};

// Sessions a group holds at once may take at most this share of the free device memory (the
// rest is for the next plan's workspace and replays, and for other processes).
constexpr double kGroupMemoryShare = 0.25;
constexpr std::size_t kMaxGroupRows = 16;

}  // namespace

RowResult run_row(GraphData& data, Provider& provider, Stream& stream, const EngineInfo& engine,
                  const RunOptions& options) {
  RowRun run(data, provider, stream, engine, options);
  run.prepare();
  run.measure();
  run.finish();
  return run.tune();
}

bool groups_rows(Stream& stream, const RunOptions& options) {
  return options.group_rows && !options.profile_child_plan && stream.make_kernel_timer() != nullptr;
}

void run_row_group(GraphData& data, const std::vector<GroupRow>& rows, const RunOptions& options,
                   const std::function<bool(std::size_t)>& starting,
                   const std::function<void(std::size_t)>& running,
                   const std::function<void(std::size_t, RowResult)>& finished, KeepWarm* keep_warm) {
  if (rows.empty()) return;
  if (!groups_rows(rows.front().stream, options)) {
    if (keep_warm) keep_warm->stop();  // a host row measures alone
    for (std::size_t i = 0; i < rows.size() && starting(i); ++i)
      finished(i, run_row(data, rows[i].provider, rows[i].stream, rows[i].engine, options));
    return;
  }
  bool stopped = false;
  for (std::size_t next = 0; next < rows.size() && !stopped;) {
    // Prepare while the held sessions fit: the next row is taken to need what the last one held.
    std::vector<std::unique_ptr<RowRun>> group;
    std::int64_t held = 0;
    const auto free = rows[next].provider.device_memory_free();
    const std::size_t first = next;
    while (next < rows.size() && group.size() < kMaxGroupRows) {
      if (!group.empty() && free &&
          static_cast<double>(held + group.back()->held_bytes()) >
              kGroupMemoryShare * static_cast<double>(*free))
        break;
      if (!starting(next)) {
        stopped = true;
        break;
      }
      const auto& row = rows[next];
      auto& run =
          *group.emplace_back(std::make_unique<RowRun>(data, row.provider, row.stream, row.engine, options));
      run.prepare();
      held += run.held_bytes();
      ++next;
    }
    // The first row's warm-up follows the group's host work, the device idle: it loads the
    // device long enough for the driver to answer; a later one follows the row before it, unless
    // that one failed or was skipped before it measured.
    // After a heated gap the first row to measure gets what the heater did. The device counts as
    // loaded only where the driver already held it at the cap: a gap of ~0.2 s ends at boost, and
    // a capped row that skipped its minimum load there read 6-7% fast (H100, two of 13).
    auto kept = keep_warm ? keep_warm->stop() : std::nullopt;
    bool loaded = kept && kept->capped;
    bool capped = false;
    for (std::size_t i = 0; i < group.size(); ++i) {
      running(first + i);
      group[i]->measure(loaded, kept);
      if (group[i]->measured()) kept.reset();
      loaded = group[i]->measured();
      capped = capped || group[i]->capped();
    }
    for (std::size_t i = 0; i < group.size(); ++i) {
      running(first + i);
      group[i]->finish();
    }
    for (std::size_t i = 0; i < group.size(); ++i) {
      running(first + i);
      finished(first + i, group[i]->tune());
    }
    // The host's work until the next group measures: the device kept at the cap it was held at.
    if (keep_warm && capped && options.keep_warm) keep_warm->heat();
  }
}

}  // namespace dnnbench
