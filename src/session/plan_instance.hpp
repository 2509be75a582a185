#pragma once
// A plan instance: one built plan bound to its own buffers. It builds, binds and executes; it
// neither judges outputs (session/output_judge.hpp) nor times (session/sampler.hpp).
#include <cstdint>
#include <memory>
#include <vector>

#include "providers/provider.hpp"
#include "session/graph_data.hpp"
#include "session/plan_buffers.hpp"

namespace dnnbench {

class PlanInstance {
 public:
  // Builds (timed: build_ms) and binds (timed: bind_ms) the plan at the plain placement. Throws
  // Unsupported or std::exception from the provider.
  PlanInstance(GraphData& data, Provider& provider, Stream& stream, const PlanSpec& spec);
  PlanInstance(const PlanInstance&) = delete;
  PlanInstance& operator=(const PlanInstance&) = delete;

  Plan& plan() { return *plan_; }
  const Plan& plan() const { return *plan_; }
  const PlanSpec& spec() const { return spec_; }
  GraphData& data() { return data_; }
  const GraphData& data() const { return data_; }
  Provider& provider() { return provider_; }
  Stream& stream() { return stream_; }
  const PlanBuffers& buffers() const { return *buffers_; }
  PlanBuffers& buffers() { return *buffers_; }
  double build_ms() const { return build_ms_; }
  double bind_ms() const { return bind_ms_; }

  // Enqueues one execution on the stream (asynchronous on device providers). While rotating, each
  // execution is bound first to the next set of buffers.
  void execute();
  // Makes the outputs visible in the bound buffers and waits for them.
  void publish_outputs() {
    plan_->publish_outputs(stream_);
    stream_.synchronize();
  }
  // Moves the plan to fresh buffers at `placement` and binds it there. The new buffers are made
  // while the old ones are still held, so they land elsewhere; then the old ones are freed.
  // Anything captured with the old addresses (a graph replay) must be dropped by the caller.
  // Returns false, leaving the plan where it was, when the device has no memory for a second set.
  bool move_to(Placement placement);

  // --cache-mode rotating: `copies` sets of buffers in all (the placed one and copies - 1 more, at
  // the plain placement, holding the same inputs), which execute() binds in turn while rotating.
  // A set is used again only after the others have streamed through the cache, as a layer inside
  // a network finds its weights evicted by its neighbours. `kept` (--cache-mode producer): inputs
  // every set binds from the placed set, so they stay cached as a producer's fresh output does.
  // Throws when the device has no memory for them.
  void add_rotation_copies(std::int64_t copies, const std::vector<std::int64_t>& kept = {});
  std::int64_t rotation_copies() const { return 1 + static_cast<std::int64_t>(copies_.size()); }
  // What set k of the rotation binds (0: the placed set).
  const Bindings& set_bindings(std::size_t k) const {
    return k == 0 ? buffers_->bindings() : copy_bindings_.at(k - 1);
  }
  // Rotating on: the next execution binds the placed set, then the copies in order. Off: binds
  // the placed set again, so that checks and kernel records see the buffers the judge reads.
  void set_rotating(bool on);
  // DNNBENCH_PLANT_DEVICE_SLOWDOWN (session/planted_slowdown.hpp): sizes the device wait after
  // every execution from the plan's own time in the current cache state (rotating or not); a
  // no-op without the variable. Done at construction, and again by a rotation once its copies
  // exist: a wait sized hot was 3.2% of a producer row's time where 5% was asked for (H100).
  void plant_slowdown();

 private:
  GraphData& data_;
  Provider& provider_;
  Stream& stream_;
  PlanSpec spec_;
  std::unique_ptr<Plan> plan_;
  std::unique_ptr<PlanBuffers> buffers_;
  std::vector<std::unique_ptr<PlanBuffers>> copies_;  // the rotation's other sets
  std::vector<Bindings> copy_bindings_;               // theirs, with the kept inputs of the placed set
  std::vector<std::int64_t> kept_;
  void bind_kept_to_placed_set();
  bool rotating_ = false;
  std::size_t next_set_ = 0;  // 0: buffers_, k: copies_[k - 1]
  double build_ms_ = 0, bind_ms_ = 0;
  // The device wait after every execution (session/planted_slowdown.hpp); 0: none.
  double planted_delay_us_ = 0;
};

}  // namespace dnnbench
