#include "run/row_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "measure/host_timer.hpp"
#include "measure/stopping_rule.hpp"
#include "tensor/compare.hpp"
#include "tensor/npy.hpp"

namespace dnnbench {
namespace {

// The buffers one row binds: private copies of the inputs (a library that writes its inputs
// cannot corrupt other rows), poisoned outputs, and by-value scalars (bound by host pointer).
// For device providers each tensor also gets a device buffer, filled from the host copy.
struct RowBuffers {
  std::map<std::int64_t, HostTensor> tensors;
  std::map<std::int64_t, double> scalars;
  std::map<std::int64_t, std::unique_ptr<DeviceBuffer>> device;
  Bindings bindings;

  RowBuffers(const GraphData& data, Provider& provider, Stream& stream) {
    const auto& graph = data.graph();
    for (const auto& [uid, tensor] : data.inputs()) tensors.emplace(uid, tensor);
    for (auto uid : graph.input_uids())
      if (graph.tensor(uid).is_by_value()) scalars[uid] = *graph.tensor(uid).scalar_value;
    for (auto uid : graph.output_uids()) tensors.emplace(uid, HostTensor(graph.tensor(uid)));
    for (auto uid : graph.output_uids()) tensors.at(uid).poison();
    for (auto& [uid, value] : scalars) bindings.buffers[uid] = &value;
    if (provider.device() == DeviceKind::host) {
      for (auto& [uid, tensor] : tensors) bindings.buffers[uid] = tensor.data();
      return;
    }
    for (auto& [uid, tensor] : tensors) {
      auto buffer = provider.allocate(tensor.size_bytes());
      if (!buffer) throw std::runtime_error("the provider allocated no device memory");
      provider.copy_to_device(buffer->data(), tensor.data(), tensor.size_bytes(), stream);
      bindings.buffers[uid] = buffer->data();
      device.emplace(uid, std::move(buffer));
    }
    stream.synchronize();
  }

  // Brings the outputs back to the host tensors (a no-op on host providers).
  void fetch_outputs(const Graph& graph, Provider& provider, Stream& stream) {
    if (device.empty()) return;
    for (auto uid : graph.output_uids()) {
      auto& tensor = tensors.at(uid);
      provider.copy_to_host(tensor.data(), device.at(uid)->data(), tensor.size_bytes(), stream);
    }
    stream.synchronize();
  }
};

// Back-to-back executions per device-timed sample. One event pair per launch doubles a ~25 us
// kernel on the H200 (launch gaps land inside the pair; shared/reference/ANCHORS.md), so short
// kernels are batched until a batch lasts about kTargetBatchMs: event resolution (~0.5 us) and
// the first launch's latency are then under 0.1% of the batch.
constexpr double kTargetBatchMs = 1.0;
constexpr std::int64_t kMaxBatch = 1000;

std::int64_t choose_batch(Plan& plan, Stream& stream, KernelTimer& timer) {
  timer.start();
  plan.execute(stream);
  timer.stop();
  stream.synchronize();
  const double single_ms = timer.elapsed_ms();
  if (!(single_ms > 0)) return kMaxBatch;
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil(kTargetBatchMs / single_ms)), 1, kMaxBatch);
}

std::unique_ptr<StoppingRule> make_rule(const RunOptions& options) {
  if (options.iters) return std::make_unique<FixedCountRule>(*options.iters);
  return std::make_unique<AdaptiveMedianRule>(options.adaptive);
}

Correctness check_outputs(GraphData& data, const RowBuffers& buffers, const RunOptions& options) {
  const auto& graph = data.graph();
  const auto& reference = data.reference();
  Correctness c;
  c.reference = "cpu-fp64";
  double worst = -1;
  for (auto uid : graph.output_uids()) {
    const auto& desc = graph.tensor(uid);
    Tolerance tol = default_tolerance(desc.dtype, data.cost().reduction_length);
    if (options.rtol) tol.rtol = *options.rtol, tol.basis = "--rtol/--atol";
    if (options.atol) tol.atol = *options.atol, tol.basis = "--rtol/--atol";
    const auto result = compare_values(buffers.tensors.at(uid).to_dense(), reference.at(uid), tol);
    OutputCheck o{desc.name,
                  result.passed,
                  result.max_abs_diff,
                  result.max_rel_diff,
                  result.norm_rel_error,
                  result.mismatches,
                  result.nonfinite,
                  result.first_mismatch,
                  tol.rtol,
                  tol.atol,
                  tol.basis};
    c.passed = c.passed && o.passed;
    c.max_abs_diff = std::max(c.max_abs_diff, o.max_abs_diff);
    c.max_rel_diff = std::max(c.max_rel_diff, o.max_rel_diff);
    if (o.norm_rel_error > worst || !std::isfinite(o.norm_rel_error)) {
      worst = o.norm_rel_error;
      c.norm_rel_error = o.norm_rel_error;
      c.rtol = o.rtol;
      c.atol = o.atol;
    }
    c.outputs.push_back(std::move(o));
  }
  return c;
}

void dump_outputs(const GraphData& data, const RowBuffers& buffers, const RowResult& row,
                  const std::string& dir) {
  const auto& graph = data.graph();
  const auto folder = std::filesystem::path(dir) / sanitize_for_path(graph.name) /
                      sanitize_for_path(row.provider) / sanitize_for_path(row.engine_id.value_or("none"));
  for (auto uid : graph.output_uids()) {
    const auto& desc = graph.tensor(uid);
    write_npy(folder / (sanitize_for_path(desc.name) + ".npy"), buffers.tensors.at(uid).to_dense(),
              desc.dtype);
  }
}

}  // namespace

std::string sanitize_for_path(std::string_view text) {
  std::string out(text);
  for (auto& ch : out)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_' || ch == '-')) ch = '_';
  if (out.empty() || out == "." || out == "..") out = "_" + out;
  return out;
}

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
  const char* stage = "heuristic";
  try {
    const auto spec = provider.heuristic_plan(graph, engine);
    row.plan_name = spec.name();

    stage = "build";
    HostTimer timer;
    auto plan = provider.build(graph, spec);
    row.cpu_build_time_ms = timer.elapsed_ms();
    row.plan_name = plan->name();
    row.workspace_bytes = static_cast<std::int64_t>(plan->workspace_bytes());

    stage = "bind";
    RowBuffers buffers(data, provider, stream);
    timer.restart();
    plan->bind(buffers.bindings, stream);
    stream.synchronize();
    row.bind_time_ms = timer.elapsed_ms();
    row.plan_notes = plan->notes();

    // Checked run: the first execution, on poisoned outputs, so unwritten elements fail.
    stage = "execute";
    plan->execute(stream);
    plan->publish_outputs(stream);
    stream.synchronize();
    buffers.fetch_outputs(graph, provider, stream);
    stage = "reference";
    row.correctness = check_outputs(data, buffers, options);

    stage = "warm-up";
    for (std::int64_t i = 0; i < options.warmup; ++i) {
      plan->execute(stream);
      stream.synchronize();
    }
    stage = "measure";
    auto kernel_timer = stream.make_kernel_timer();
    const std::int64_t batch = kernel_timer ? choose_batch(*plan, stream, *kernel_timer) : 1;
    auto rule = make_rule(options);
    std::vector<double> host_samples, kernel_samples;
    while (!rule->finished()) {
      timer.restart();
      if (kernel_timer) kernel_timer->start();
      for (std::int64_t i = 0; i < batch; ++i) plan->execute(stream);
      if (kernel_timer) kernel_timer->stop();
      stream.synchronize();
      host_samples.push_back(timer.elapsed_ms() / static_cast<double>(batch));
      if (kernel_timer) kernel_samples.push_back(kernel_timer->elapsed_ms() / static_cast<double>(batch));
      // The rule judges the primary figure: kernel time where there is one.
      rule->add(kernel_timer ? kernel_samples.back() : host_samples.back());
    }
    row.host_stats = summarize(host_samples);
    if (kernel_timer) row.gpu_kernel_stats = summarize(kernel_samples);
    TimingInfo timing;
    timing.method = kernel_timer ? fmt::format("device-events-batched({} per sample)", batch) : "host-per-execution";
    timing.batch = batch;
    timing.rule = rule->name();
    timing.converged = rule->converged();
    timing.warmup = options.warmup;
    timing.elapsed_ms = rule->elapsed_ms() * static_cast<double>(batch);
    if (options.save_samples) timing.samples_ms = rule->samples();
    row.timing = std::move(timing);

    // Outputs after repeated executions must still be right (catches accumulation into the
    // output and state carried between executions).
    stage = "re-check";
    plan->publish_outputs(stream);
    stream.synchronize();
    buffers.fetch_outputs(graph, provider, stream);
    if (row.correctness->passed) {
      auto again = check_outputs(data, buffers, options);
      if (!again.passed) {
        for (auto& o : again.outputs)
          if (!o.passed) o.first_mismatch = "after repeated executions: " + o.first_mismatch;
        row.correctness = std::move(again);
      }
    }
    if (options.dump_tensors_dir) dump_outputs(data, buffers, row, *options.dump_tensors_dir);
  } catch (const Unsupported& e) {
    row.status = RowStatus::skipped;
    row.skip_reason = e.what();
  } catch (const std::exception& e) {
    row.status = RowStatus::error;
    row.error_message = fmt::format("{} failed: {}", stage, e.what());
  }
  return row;
}

}  // namespace dnnbench
