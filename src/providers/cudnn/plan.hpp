#pragma once
// A built cuDNN plan: the finalized execution plan, everything it points to (operation graph,
// engine config), its workspace, and the variant pack of the bound buffers.
#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "providers/cudnn/device.hpp"
#include "providers/cudnn/engines.hpp"
#include "providers/provider.hpp"

namespace dnnbench::cudnn {

class CudnnPlan final : public Plan {
 public:
  // Finalizes the execution plan (kernel selection; runtime-compiled engines compile here) and
  // allocates its workspace. Throws Unsupported when cuDNN refuses the config, or when the
  // plan it built is not the one requested.
  CudnnPlan(std::shared_ptr<OpGraph> graph, const EngineConfig& config);
  // The same plan from `serialized` (what serialized() gave for this graph and config, possibly in
  // an earlier process): cuDNN restores it without compiling. Throws when cuDNN refuses it.
  CudnnPlan(std::shared_ptr<OpGraph> graph, const EngineConfig& config, const std::string& serialized);
  CudnnPlan(const CudnnPlan&) = delete;
  CudnnPlan& operator=(const CudnnPlan&) = delete;

  std::string name() const override { return name_; }
  std::size_t workspace_bytes() const override { return workspace_bytes_; }
  void bind(const Bindings& bindings, Stream& stream) override;
  void execute(Stream& stream) override;
  void publish_outputs(Stream&) override {}
  std::vector<std::string> notes() const override { return notes_; }
  void add_note(std::string note) { notes_.push_back(std::move(note)); }
  std::optional<PlanCacheUse> cache_use() const override { return cache_use_; }
  void set_cache_use(PlanCacheUse use) { cache_use_ = std::move(use); }
  // cuDNN's serialized form of the finalized plan (CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION);
  // "" where cuDNN does not serialize this engine's plans.
  std::string serialized() const;

 private:
  // After the plan is finalized: checks it is the plan asked for, sizes its workspace and
  // allocates its scratch tensors.
  void finish(const EngineConfig& config);

  std::shared_ptr<OpGraph> graph_;
  BuiltConfig config_;
  Descriptor plan_;
  std::string name_;
  std::size_t workspace_bytes_ = 0;
  std::unique_ptr<DeviceMemory> workspace_;
  std::vector<std::unique_ptr<DeviceMemory>> scratch_;  // OpGraph::scratch, same order
  // By-value scalars converted to their tensor's type; the variant pack points here.
  std::vector<std::array<std::byte, 8>> scalars_;
  Descriptor pack_;
  std::vector<std::string> notes_;
  std::optional<PlanCacheUse> cache_use_;
};

}  // namespace dnnbench::cudnn
