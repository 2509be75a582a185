#include "providers/cudnn/plan.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>

#include "tensor/dtype.hpp"

namespace dnnbench::cudnn {

CudnnPlan::CudnnPlan(std::shared_ptr<OpGraph> graph, const EngineConfig& config)
    : graph_(std::move(graph)), config_(build_config(*graph_, config)), name_(to_spec(config).name()) {
  plan_ = Descriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  set(plan_, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, graph_->handle->get());
  set(plan_, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, config_.config);
  plan_.finalize("execution plan " + name_);
  finish(config);
}

CudnnPlan::CudnnPlan(std::shared_ptr<OpGraph> graph, const EngineConfig& config,
                     const std::string& serialized)
    : graph_(std::move(graph)), config_(build_config(*graph_, config)), name_(to_spec(config).name()) {
  plan_ = Descriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  set(plan_, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, graph_->handle->get());
  set_raw(plan_, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR,
          static_cast<std::int64_t>(serialized.size()), serialized.data());
  plan_.finalize("execution plan " + name_ + " from its serialized form");
  finish(config);
}

std::string CudnnPlan::serialized() const {
  // Not an error where cuDNN does not serialize the engine: the plan is simply not kept.
  std::int64_t size = 0;
  if (cudnnBackendGetAttribute(plan_.get(), CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, 0,
                               &size, nullptr) != CUDNN_STATUS_SUCCESS ||
      size <= 0)
    return "";
  std::string text(static_cast<std::size_t>(size), '\0');
  std::int64_t got = 0;
  if (cudnnBackendGetAttribute(plan_.get(), CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR,
                               size, &got, text.data()) != CUDNN_STATUS_SUCCESS)
    return "";
  text.resize(static_cast<std::size_t>(std::clamp<std::int64_t>(got, 0, size)));
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

void CudnnPlan::finish(const EngineConfig& config) {
  // Never run another plan than the one named: read back what cuDNN built.
  try {
    auto built = get_descriptors(plan_, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
                                 CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, 1);
    if (!built.empty()) {
      const EngineConfig actual = read_config(built.front());
      bool same = actual.engine == config.engine;
      for (const auto& want : config.knobs)
        for (const auto& got : actual.knobs)
          if (got.type == want.type && got.value != want.value) same = false;
      if (!same) throw Unsupported("cuDNN built " + to_spec(actual).name() + " for the requested " + name_);
    }
  } catch (const Unsupported&) {
    throw;
  } catch (const std::exception& e) {
    notes_.push_back(std::string("the plan's config could not be read back: ") + e.what());
  }

  workspace_bytes_ =
      static_cast<std::size_t>(get_one<std::int64_t>(plan_, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE));
  if (workspace_bytes_ > 0) workspace_ = std::make_unique<DeviceMemory>(workspace_bytes_);
  for (const auto& s : graph_->scratch) {
    scratch_.push_back(std::make_unique<DeviceMemory>(std::max<std::size_t>(s.bytes, 1)));
    if (!s.init.empty())
      cuda_check(cudaMemcpy(scratch_.back()->data(), s.init.data(), s.init.size(), cudaMemcpyHostToDevice),
                 "filling a lowering's scratch tensor");
  }
  notes_.push_back("operations: " + graph_->summary);
}

void CudnnPlan::bind(const Bindings& bindings, Stream&) {
  std::vector<std::int64_t> uids;
  std::vector<void*> pointers;
  scalars_.assign(graph_->bound.size() + graph_->constants.size(), {});
  for (std::size_t i = 0; i < graph_->constants.size(); ++i) {
    const auto& c = graph_->constants[i];
    std::byte* slot = scalars_[graph_->bound.size() + i].data();
    store_element(c.dtype, slot, c.value);
    uids.push_back(c.uid);
    pointers.push_back(slot);
  }
  for (std::size_t i = 0; i < graph_->scratch.size(); ++i) {
    uids.push_back(graph_->scratch[i].uid);
    pointers.push_back(scratch_[i]->data());
  }
  for (std::size_t i = 0; i < graph_->bound.size(); ++i) {
    const BoundTensor& t = graph_->bound[i];
    void* p = bindings.at(t.uid);
    if (t.by_value) {
      // The runner binds scalars as host doubles; cuDNN reads them in the tensor's type.
      store_element(t.dtype, scalars_[i].data(), *static_cast<const double*>(p));
      p = scalars_[i].data();
    }
    uids.push_back(t.uid);
    pointers.push_back(p);
  }
  pack_ = Descriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  set(pack_, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, uids);
  set_pointers(pack_, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, pointers);
  void* workspace = bindings.workspace ? bindings.workspace : workspace_ ? workspace_->data() : nullptr;
  set_pointers(pack_, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, std::span<void* const>(&workspace, 1));
  pack_.finalize("variant pack of " + name_);
}

void CudnnPlan::execute(Stream& stream) {
  if (!pack_) throw std::logic_error("execute before bind");
  // The handle is shared by every plan of the provider: set the stream each time (a host-side
  // store, negligible next to a launch).
  check(cudnnSetStream(graph_->handle->get(), cuda_stream_of(stream)), "cudnnSetStream");
  check(cudnnBackendExecute(graph_->handle->get(), plan_.get(), pack_.get()), "executing " + name_);
}

}  // namespace dnnbench::cudnn
