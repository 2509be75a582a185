#include "providers/crashtest/crashtest_provider.hpp"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>

#include "providers/reference/reference_provider.hpp"

namespace dnnbench {
namespace {

class FailingPlan final : public Plan {
 public:
  FailingPlan(std::string engine, std::unique_ptr<Plan> reference)
      : engine_(std::move(engine)), reference_(std::move(reference)) {}
  std::string name() const override { return engine_; }
  std::size_t workspace_bytes() const override { return 0; }
  void bind(const Bindings& bindings, Stream& stream) override { reference_->bind(bindings, stream); }
  void execute(Stream& stream) override {
    if (engine_ == "segv") std::raise(SIGSEGV);
    if (engine_ == "abort") std::abort();
    if (engine_ == "hang")
      for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
    reference_->execute(stream);
  }
  void publish_outputs(Stream& stream) override { reference_->publish_outputs(stream); }

 private:
  std::string engine_;
  std::unique_ptr<Plan> reference_;
};

class CrashtestProvider final : public Provider {
 public:
  std::string_view name() const override { return "crashtest"; }
  DeviceKind device() const override { return DeviceKind::host; }
  std::string version() const override { return "test double (fails on request)"; }
  std::unique_ptr<Stream> make_stream() override { return reference_->make_stream(); }
  std::vector<EngineInfo> engines(const Graph&) override {
    return {{"ok", "the reference", {}},
            {"segv", "raises SIGSEGV", {}},
            {"abort", "calls abort()", {}},
            {"hang", "never returns", {}}};
  }
  PlanSpec heuristic_plan(const Graph&, const EngineInfo& engine) override { return {engine.id, {}}; }
  std::vector<PlanSpec> plan_space(const Graph& graph, const EngineInfo& engine,
                                   const SweepLimits&) override {
    return {heuristic_plan(graph, engine)};
  }
  std::unique_ptr<Plan> build(const Graph& graph, const PlanSpec& spec) override {
    auto reference_spec = reference_->heuristic_plan(graph, reference_->engines(graph).front());
    return std::make_unique<FailingPlan>(spec.engine_id, reference_->build(graph, reference_spec));
  }

 private:
  std::unique_ptr<Provider> reference_ = make_reference_provider();
};

}  // namespace

std::unique_ptr<Provider> make_crashtest_provider() {
  return std::make_unique<CrashtestProvider>();
}

}  // namespace dnnbench
