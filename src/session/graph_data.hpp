#pragma once
// Everything about one graph that every row shares: seeded inputs (identical for every
// engine), the reference outputs, the cost figures.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "graph/cost.hpp"
#include "graph/graph.hpp"
#include "providers/provider.hpp"
#include "reference/device_compare.hpp"
#include "reference/reference.hpp"
#include "tensor/fill.hpp"
#include "tensor/host_tensor.hpp"

namespace dnnbench {

// Which reference judges a row. cpu-fp64: the CPU reference, every op accumulated in fp64.
// gpu-fp32: convolutions and matmuls by the CUDA reference kernels (fp32 accumulation), every
// other node by the CPU reference; perf-sized graphs then validate in seconds.
enum class ReferenceKind { cpu_fp64, gpu_fp32 };
std::string_view reference_kind_name(ReferenceKind kind);  // "cpu-fp64", "gpu-fp32"

// A name made safe as one folder or file name: characters outside [A-Za-z0-9._-] become '_'.
std::string sanitize_for_path(std::string_view text);

class GraphData {
 public:
  // `allow_gpu_reference`: device providers' rows may be judged by the CUDA reference.
  GraphData(const Graph& graph, std::uint64_t seed, bool allow_gpu_reference = true,
            FillKind fill = FillKind::normal);

  const Graph& graph() const { return graph_; }
  const GraphCost& cost() const { return cost_; }
  // Seeded inputs in their own dtype and strides (by-value scalars excluded).
  const std::map<std::int64_t, HostTensor>& inputs() const { return inputs_; }
  // The reference for rows of a provider on this kind of device: gpu-fp32 for a CUDA provider
  // when the graph has a convolution or matmul, the CUDA reference can run here and is allowed;
  // cpu-fp64 otherwise.
  ReferenceKind reference_kind_for(DeviceKind device);
  // Reference values of every tensor (inputs as stored, outputs computed); computed on first
  // use of each kind. Throws std::runtime_error when the reference cannot run the graph.
  const Values& reference(ReferenceKind kind = ReferenceKind::cpu_fp64);
  // The reference output `uid` of that kind as a device copy for reference/device_compare.hpp,
  // uploaded on first use; nullptr when outputs cannot be compared on the device here (not built
  // with CUDA, no device, DNNBENCH_HOST_COMPARE=1, or the upload failed): the host compares them.
  const DeviceReference* device_reference(ReferenceKind kind, std::int64_t uid);
  // The magnitude reference of that kind (reference/magnitude.hpp: the graph on |inputs|), for
  // judging an elementwise failure componentwise; nullptr when the graph is not one it bounds.
  // Computed on first use: only a row that failed elementwise asks.
  const Values* magnitude(ReferenceKind kind);
  // Seconds the reference of that kind took (after reference(kind) ran).
  double reference_seconds(ReferenceKind kind = ReferenceKind::cpu_fp64) const {
    return reference_seconds_[static_cast<int>(kind)];
  }
  // --dump-tensors: the graph's folder under the dump folder, unique in the suite (two graphs
  // may share a `name`); the graph's name made safe for a path unless set.
  const std::string& dump_folder() const { return dump_folder_; }
  void set_dump_folder(std::string folder) { dump_folder_ = std::move(folder); }
  // The graph's content hash (run/graph_loader.hpp), by which --plans-from finds stored plans.
  const std::string& content_hash() const { return content_hash_; }
  void set_content_hash(std::string hash) { content_hash_ = std::move(hash); }

 private:
  Values compute_reference(ReferenceKind kind, bool absolute_inputs) const;

  const Graph& graph_;
  GraphCost cost_;
  std::map<std::int64_t, HostTensor> inputs_;
  bool allow_gpu_reference_;
  std::optional<bool> gpu_reference_usable_;  // asked once per graph
  std::optional<Values> reference_[2];        // by ReferenceKind
  std::optional<Values> magnitude_[2];        // by ReferenceKind
  double reference_seconds_[2] = {0, 0};
  std::optional<bool> device_compare_usable_;  // asked once per graph
  std::map<std::pair<int, std::int64_t>, std::unique_ptr<DeviceReference>> device_reference_;
  std::string dump_folder_;
  std::string content_hash_;
};

}  // namespace dnnbench
