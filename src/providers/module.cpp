#include "providers/module.hpp"

#include <dlfcn.h>

#include "providers/host_stream.hpp"

namespace dnnbench {
namespace {

// Stands in for a module that did not load: says why wherever a row or listing asks.
class UnloadedModuleProvider final : public Provider {
 public:
  UnloadedModuleProvider(std::string name, std::string reason)
      : name_(std::move(name)), reason_(std::move(reason)) {}
  std::string_view name() const override { return name_; }
  DeviceKind device() const override { return DeviceKind::host; }
  std::string version() const override { return "not loaded"; }
  std::string unusable_reason() override { return reason_; }
  std::unique_ptr<Stream> make_stream() override { return std::make_unique<SynchronousHostStream>(); }
  std::vector<EngineInfo> engines(const Graph&) override { throw Unsupported(reason_); }
  PlanSpec heuristic_plan(const Graph&, const EngineInfo&) override { throw Unsupported(reason_); }
  std::vector<PlanSpec> plan_space(const Graph&, const EngineInfo&, const SweepLimits&) override {
    throw Unsupported(reason_);
  }
  std::unique_ptr<Plan> build(const Graph&, const PlanSpec&) override { throw Unsupported(reason_); }

 private:
  std::string name_, reason_;
};

}  // namespace

std::unique_ptr<Provider> load_provider_module(const std::string& name, const std::string& path,
                                               const char* factory) {
  // RTLD_NOW: a missing library or symbol fails here, with its name, not at the first call.
  // Never closed: the provider's code and its library's state live until exit.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return std::make_unique<UnloadedModuleProvider>(name,
                                                    "cannot load provider module " + path + ": " + dlerror());
  void* symbol = dlsym(handle, factory);
  if (!symbol)
    return std::make_unique<UnloadedModuleProvider>(name, "provider module " + path + " has no " + factory);
  using Factory = Provider* (*)();
  return std::unique_ptr<Provider>(reinterpret_cast<Factory>(symbol)());
}

}  // namespace dnnbench
