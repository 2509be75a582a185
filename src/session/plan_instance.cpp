#include "session/plan_instance.hpp"

#include "measure/host_timer.hpp"

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
