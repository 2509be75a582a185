#include "session/plan_instance.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "measure/host_timer.hpp"
#include "session/planted_slowdown.hpp"

namespace dnnbench {

PlanInstance::PlanInstance(GraphData& data, Provider& provider, Stream& stream, const PlanSpec& spec)
    : data_(data), provider_(provider), stream_(stream), spec_(spec) {
  HostTimer timer;
  plan_ = provider.build(data.graph(), spec);
  build_ms_ = timer.elapsed_ms();
  buffers_ = std::make_unique<PlanBuffers>(data, provider, stream);
  timer.restart();
  plan_->bind(buffers_->bindings(), stream);
  stream.synchronize();
  bind_ms_ = timer.elapsed_ms();
  plant_slowdown();
}

void PlanInstance::plant_slowdown() {
  const auto factor = planted_device_slowdown();
  if (!factor) return;
  planted_delay_us_ = 0;  // sized on the plain executions (execute() rotates while rotating)
  auto timer = stream_.make_kernel_timer();
  if (!timer || !stream_.enqueue_delay(0)) {
    static bool told = false;
    if (!told)
      std::fprintf(stderr, "dnnbench: %s: this build's streams cannot plant a device wait; ignored\n",
                   kPlantedSlowdownVariable);
    told = true;
    return;
  }
  // The plan's own time per execution, gated (the events then hold the executions, not the
  // host's launches), after a first execution (module loads) and kWarmMs of them: right after the
  // plan's build the device has idled on the host, and five executions timed there ran at its
  // low clock: a 1.05 plant sized from them read 1.06-1.18 on the H100's ResNet-50 rows.
  // Timed as the default sampler times them, one captured replay of the batch, where the stream
  // can capture: a wait kernel's boundary inside a replay is smaller than between gated launches,
  // and sized from the latter a 1.05 plant read 1.031-1.036 on the 76-100 us rows (H100).
  constexpr double kWarmMs = 30, kTimedMs = 2;
  const auto per_execution_ms = [&](int executions, bool zero_wait) {
    double best = std::numeric_limits<double>::infinity();
    std::string why_not;
    const auto replay = stream_.capture(
        [&] {
          execute();
          if (zero_wait) stream_.enqueue_delay(0);
        },
        executions, why_not);
    for (int round = 0; round < 3 && replay; ++round) {
      timer->start();
      replay->launch();
      timer->stop();
      stream_.synchronize();
      best = std::min(best, timer->elapsed_ms() / executions);
    }
    if (replay) return best;
    for (int round = 0; round < 3; ++round) {
      auto gate = stream_.make_gate();
      timer->start();
      for (int i = 0; i < executions; ++i) {
        execute();
        if (zero_wait) stream_.enqueue_delay(0);
      }
      timer->stop();
      if (gate) gate->release();
      stream_.synchronize();
      best = std::min(best, timer->elapsed_ms() / executions);
    }
    return best;
  };
  execute();
  stream_.synchronize();
  for (HostTimer warm; warm.elapsed_ms() < kWarmMs;) {
    for (int i = 0; i < 8; ++i) execute();
    stream_.synchronize();
  }
  // At most 32 executions behind the gate: the launches wait in the stream's queue, which must
  // not fill before the gate is released.
  const int executions =
      static_cast<int>(std::clamp(std::ceil(kTimedMs / per_execution_ms(1, false)), 5.0, 32.0));
  const double plain_us = 1e3 * per_execution_ms(executions, false);
  // The wait kernel costs a kernel boundary even when it waits for nothing (about 1 us): the
  // planted wait is what is left of the share after it.
  const double boundary_us = std::max(0.0, 1e3 * per_execution_ms(executions, true) - plain_us);
  const double share_us = (*factor - 1.0) * plain_us;
  if (share_us <= boundary_us) {
    static bool told = false;
    if (!told)
      std::fprintf(stderr,
                   "dnnbench: %s: a plan of %.1f us carries no plant: the wait kernel alone adds %.1f us, "
                   "more than the %.1f us asked for (such rows run unplanted: no %s in their kernels)\n",
                   kPlantedSlowdownVariable, plain_us, boundary_us, share_us, "dnnbench_planted_delay");
    told = true;
    return;
  }
  planted_delay_us_ = share_us - boundary_us;
}

void PlanInstance::execute() {
  if (rotating_) {
    plan_->bind(set_bindings(next_set_), stream_);
    next_set_ = (next_set_ + 1) % (copies_.size() + 1);
  }
  plan_->execute(stream_);
  if (planted_delay_us_ > 0) stream_.enqueue_delay(planted_delay_us_);
}

void PlanInstance::add_rotation_copies(std::int64_t copies, const std::vector<std::int64_t>& kept) {
  copies_.clear();
  copy_bindings_.clear();
  kept_ = kept;
  for (std::int64_t i = 1; i < copies; ++i) {
    copies_.push_back(std::make_unique<PlanBuffers>(data_, provider_, stream_));
    copy_bindings_.push_back(copies_.back()->bindings());
  }
  bind_kept_to_placed_set();
  stream_.synchronize();  // the copies' uploads are done before any execution reads them
}

void PlanInstance::bind_kept_to_placed_set() {
  const auto& placed = buffers_->bindings().buffers;
  for (auto& bindings : copy_bindings_)
    for (const auto uid : kept_)
      if (const auto it = placed.find(uid); it != placed.end()) bindings.buffers[uid] = it->second;
}

void PlanInstance::set_rotating(bool on) {
  if (rotating_ == on) return;
  rotating_ = on;
  next_set_ = 0;
  if (!on) plan_->bind(buffers_->bindings(), stream_);
}

bool PlanInstance::move_to(Placement placement) {
  std::unique_ptr<PlanBuffers> fresh;
  try {
    fresh = std::make_unique<PlanBuffers>(data_, provider_, stream_, placement, plan_->workspace_bytes());
  } catch (const std::exception&) {
    // Out of device memory for a second set: the plan stays where it is. A bad allocation
    // anywhere else would fail the row's first placement too.
    return false;
  }
  stream_.synchronize();  // nothing may still run on the old buffers
  plan_->bind(fresh->bindings(), stream_);
  stream_.synchronize();
  buffers_ = std::move(fresh);
  bind_kept_to_placed_set();  // the copies must not read the kept inputs where they were
  return true;
}

}  // namespace dnnbench
