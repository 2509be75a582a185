// Rotating samples (--cache-mode rotating): each execution of a batch runs on the next of several
// copies of the plan's buffers, so a copy comes round again only after at least twice the device's
// last-level cache of other data has passed through it. A layer inside a network finds its
// weights evicted by its neighbours; a hot loop over one set of buffers finds them in L2, and on
// the H200 a decode GEMM with a 32 MB weight read 22.9 and 29.8 us in two processes by how much
// of it stayed there (docs/methodology.md, "What a row's time means"). Unlike a cold flush, the
// samples stay batched and back to back, so short kernels keep their replay and the sustained
// power state.
#include <fmt/format.h>

#include <algorithm>

#include "graph/fresh_inputs.hpp"
#include "graph/memory.hpp"
#include "session/sampler.hpp"

namespace dnnbench {
namespace {

double mib(std::int64_t bytes) {
  return static_cast<double>(bytes) / (1 << 20);
}

// What the rotation does, for timing.cache_flush; `cut` says why it holds fewer sets than its plan.
std::string rotation_description(const RotationPlan& plan, const std::string& cut = "") {
  const auto rotated = plan.copies * (plan.working_set_bytes - plan.kept_bytes);
  return fmt::format(
      "rotating over {} {} of the bound tensors{}, {:.1f} MiB against a {:.1f} MiB cache{}", plan.copies,
      plan.copies == 1 ? "set" : "sets",
      plan.kept_bytes > 0
          ? fmt::format(" but the inputs a producer has just written ({:.1f} MiB, kept in one set)",
                        mib(plan.kept_bytes))
          : "",
      mib(rotated), mib(plan.cache_bytes),
      !cut.empty()                     ? cut
      : plan.copies == 1               ? " (the working set alone is twice the cache)"
      : rotated < 2 * plan.cache_bytes ? " (capped: the cache still holds part of it)"
                                       : "");
}

class RotatingSampler final : public Sampler {
 public:
  // The copies are made at the first sample, once fit_batch has had its say: a session is set up
  // more than once before it samples (its default options, then the row's).
  RotatingSampler(std::unique_ptr<Sampler> inner, PlanInstance& instance, RotationPlan plan,
                  std::vector<std::int64_t> kept)
      : inner_(std::move(inner)), instance_(instance), plan_(std::move(plan)), kept_(std::move(kept)) {}
  void fit_batch(std::int64_t executions) override {
    if (made_ || executions >= plan_.copies) return;
    const auto wanted = plan_.copies;
    plan_.copies = std::max<std::int64_t>(1, executions);
    plan_.description = rotation_description(
        plan_,
        fmt::format(" (cut from {} to the {} a 10 ms batch holds: a round of all would outlast the batch)",
                    wanted, plan_.copies));
  }
  Sample take(std::int64_t executions) override {
    if (!made_) {
      instance_.add_rotation_copies(plan_.copies, kept_);
      made_ = true;
      // A planted wait (test-only) is sized again in the rotation's cache state.
      instance_.set_rotating(true);
      instance_.plant_slowdown();
      instance_.set_rotating(false);
    }
    // Rotating only inside the sample: the output check and the placements' moves see the placed
    // set bound. A replay captured while rotating keeps the rotation it captured.
    struct Rotating {
      PlanInstance& instance;
      explicit Rotating(PlanInstance& i) : instance(i) { instance.set_rotating(true); }
      ~Rotating() { instance.set_rotating(false); }
    } rotating(instance_);
    return inner_->take(executions);
  }
  std::string method(std::int64_t batch) const override {
    return inner_->method(batch) + fmt::format("+{}({} {})", kept_.empty() ? "rotating" : "producer",
                                               plan_.copies, plan_.copies == 1 ? "copy" : "copies");
  }
  bool device_timed() const override { return inner_->device_timed(); }
  bool single_execution() const override { return inner_->single_execution(); }
  // A replay of a whole number of rounds starts every round at the first copy.
  std::int64_t batch_multiple() const override { return plan_.copies; }
  std::int64_t rotation_copies() const override { return plan_.copies; }
  std::int64_t kept_bytes() const override { return plan_.kept_bytes; }
  void rebound() override { inner_->rebound(); }
  std::string replay_fallback(std::int64_t batch) const override { return inner_->replay_fallback(batch); }
  std::string cache_flush() const override { return plan_.description; }
  CacheMode cache_mode() const override { return kept_.empty() ? CacheMode::rotating : CacheMode::producer; }

  double preparation_ms() override { return inner_->preparation_ms(); }

 private:
  std::unique_ptr<Sampler> inner_;
  PlanInstance& instance_;
  RotationPlan plan_;
  std::vector<std::int64_t> kept_;
  bool made_ = false;
};

}  // namespace

RotationPlan plan_rotation(std::int64_t working_set_bytes, std::int64_t cache_bytes,
                           std::optional<std::int64_t> device_free_bytes, std::int64_t kept_bytes) {
  RotationPlan plan;
  kept_bytes = std::clamp<std::int64_t>(kept_bytes, 0, std::max<std::int64_t>(0, working_set_bytes));
  const auto rotated = working_set_bytes - kept_bytes;
  if (rotated <= 0 || cache_bytes <= 0) {
    plan.description = rotated <= 0 && cache_bytes > 0
                           ? "rotating: every bound tensor is kept in one set (hot)"
                           : "rotating: the cache size is unknown, one set of buffers (hot)";
    return plan;
  }
  // Strictly past twice the cache: a row at exactly twice is still within the cache-sensitive range.
  const auto wanted = 2 * cache_bytes / rotated + 1;
  plan.copies = std::clamp<std::int64_t>(wanted, 1, kMaxRotationCopies);
  // The copies may take at most half of the free device memory.
  if (device_free_bytes && *device_free_bytes > 0)
    plan.copies = std::clamp<std::int64_t>(*device_free_bytes / 2 / working_set_bytes + 1, 1, plan.copies);
  plan.working_set_bytes = working_set_bytes;
  plan.cache_bytes = cache_bytes;
  plan.kept_bytes = kept_bytes;
  plan.description = rotation_description(plan);
  return plan;
}

std::unique_ptr<Sampler> make_rotating_sampler(std::unique_ptr<Sampler> inner, PlanInstance& instance,
                                               bool keep_fresh_inputs) {
  const auto& graph = instance.data().graph();
  const auto working_set = graph_tensor_bytes(graph).storage();
  std::vector<std::int64_t> kept;
  std::int64_t kept_bytes = 0;
  if (keep_fresh_inputs)
    for (const auto uid : fresh_input_uids(graph)) {
      kept.push_back(uid);
      kept_bytes = saturating_add(kept_bytes, graph.tensor(uid).storage_bytes());
    }
  auto plan = plan_rotation(working_set, instance.stream().last_level_cache_bytes(),
                            instance.provider().device_memory_free(), kept_bytes);
  return std::make_unique<RotatingSampler>(std::move(inner), instance, plan, std::move(kept));
}

}  // namespace dnnbench
