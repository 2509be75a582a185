#include "session/plan_instance.hpp"

#include <cstdio>

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
  auto timer = stream_.make_kernel_timer();
  if (!timer || !stream_.enqueue_delay(0)) {
    static bool told = false;
    if (!told)
      std::fprintf(stderr, "dnnbench: %s: this build's streams cannot plant a device wait; ignored\n",
                   kPlantedSlowdownVariable);
    told = true;
    return;
  }
  // The plan's own time per execution, after a first one (module loads): the wait is a known
  // share of it. Gated, as PlanSession sizes its batches: the events then hold the executions,
  // not the host's launches.
  constexpr int kExecutions = 5;
  plan_->execute(stream_);
  stream_.synchronize();
  auto gate = stream_.make_gate();
  timer->start();
  for (int i = 0; i < kExecutions; ++i) plan_->execute(stream_);
  timer->stop();
  if (gate) gate->release();
  stream_.synchronize();
  planted_delay_us_ = (*factor - 1.0) * timer->elapsed_ms() * 1e3 / kExecutions;
}

void PlanInstance::execute() {
  if (rotating_) {
    plan_->bind(next_set_ == 0 ? buffers_->bindings() : copies_[next_set_ - 1]->bindings(), stream_);
    next_set_ = (next_set_ + 1) % (copies_.size() + 1);
  }
  plan_->execute(stream_);
  if (planted_delay_us_ > 0) stream_.enqueue_delay(planted_delay_us_);
}

void PlanInstance::add_rotation_copies(std::int64_t copies) {
  copies_.clear();
  for (std::int64_t i = 1; i < copies; ++i)
    copies_.push_back(std::make_unique<PlanBuffers>(data_, provider_, stream_));
  stream_.synchronize();  // the copies' uploads are done before any execution reads them
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
  return true;
}

}  // namespace dnnbench
