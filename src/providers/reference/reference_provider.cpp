#include "providers/reference/reference_provider.hpp"
#include "providers/host_stream.hpp"

#include "reference/reference.hpp"
#include "tensor/host_tensor.hpp"
#include "tensor/parallel.hpp"

namespace dnnbench {
namespace {

constexpr const char* kEngineId = "cpu-fp64";

// Reads a bound buffer (the tensor's own dtype and strides) as logical values.
Dense read_bound(const TensorDesc& desc, const void* buffer) {
  Dense out(desc.dims);
  const auto* bytes = static_cast<const std::byte*>(buffer);
  const std::size_t size = dtype_size(desc.dtype);
  for_each_element(desc.dims, desc.strides, [&](std::int64_t linear, std::int64_t offset) {
    out.data[static_cast<std::size_t>(linear)] =
        load_element(desc.dtype, bytes + static_cast<std::size_t>(offset) * size);
  });
  return out;
}

void write_bound(const TensorDesc& desc, const Dense& values, void* buffer) {
  auto* bytes = static_cast<std::byte*>(buffer);
  const std::size_t size = dtype_size(desc.dtype);
  for_each_element(desc.dims, desc.strides, [&](std::int64_t linear, std::int64_t offset) {
    store_element(desc.dtype, bytes + static_cast<std::size_t>(offset) * size,
                  values.data[static_cast<std::size_t>(linear)]);
  });
}

class ReferencePlan final : public Plan {
 public:
  explicit ReferencePlan(Graph graph) : graph_(std::move(graph)) {}
  std::string name() const override { return kEngineId; }
  std::size_t workspace_bytes() const override { return 0; }
  void bind(const Bindings& bindings, Stream&) override { bindings_ = bindings; }
  // One execution = read the inputs from the bound buffers, compute in fp64, write the outputs.
  void execute(Stream&) override {
    Values values;
    for (auto uid : graph_.input_uids()) {
      const auto& desc = graph_.tensor(uid);
      values[uid] = desc.is_by_value() ? Dense(desc.dims, *static_cast<const double*>(bindings_.at(uid)))
                                       : read_bound(desc, bindings_.at(uid));
    }
    run_reference(graph_, values);
    for (auto uid : graph_.output_uids()) write_bound(graph_.tensor(uid), values.at(uid), bindings_.at(uid));
  }
  void publish_outputs(Stream&) override {}
  std::vector<std::string> notes() const override {
    return {"each execution converts inputs to fp64, computes, and rounds outputs to their types"};
  }

 private:
  Graph graph_;
  Bindings bindings_;
};

class ReferenceProvider final : public Provider {
 public:
  std::string_view name() const override { return "reference"; }
  DeviceKind device() const override { return DeviceKind::host; }
  int host_threads() const override { return reference_threads(); }
  std::string version() const override {
    return std::string("dnnbench ") + DNNBENCH_VERSION + " fp64 CPU reference";
  }
  std::unique_ptr<Stream> make_stream() override { return std::make_unique<SynchronousHostStream>(); }
  std::vector<EngineInfo> engines(const Graph&) override {
    return {{kEngineId, "dnnbench fp64 CPU reference", {"accumulates in fp64", "multithreaded"}}};
  }
  PlanSpec heuristic_plan(const Graph&, const EngineInfo& engine) override { return {engine.id, {}}; }
  std::vector<PlanSpec> plan_space(const Graph& graph, const EngineInfo& engine,
                                   const SweepLimits&) override {
    return {heuristic_plan(graph, engine)};
  }
  std::unique_ptr<Plan> build(const Graph& graph, const PlanSpec& spec) override {
    if (spec.engine_id != kEngineId || !spec.knobs.empty())
      throw Unsupported("the reference provider has one plan, " + std::string(kEngineId) + "; asked for " +
                        spec.name());
    return std::make_unique<ReferencePlan>(graph);
  }
};

}  // namespace

std::unique_ptr<Provider> make_reference_provider() {
  return std::make_unique<ReferenceProvider>();
}

}  // namespace dnnbench
