#pragma once
// Outputs of GPU rows compared with the reference on the device (reference/cuda/): the
// comparison of tensor/compare.hpp, element for element, without copying a perf-sized output to
// the host and widening it to fp64 (about 80 ms a row on the H200 for a 25 M-element output).
// It is a fast path for passing rows: a row whose device comparison finds a mismatch or a
// non-finite value is compared again on the host, which names the first mismatch; so every
// failure is reported by one comparison, the host's. Built with the CUDA reference; elsewhere
// it is unavailable and every row is compared on the host.
#include <memory>
#include <optional>
#include <string>

#include "graph/graph.hpp"
#include "tensor/compare.hpp"
#include "tensor/dense.hpp"

namespace dnnbench {

// A device copy of one reference output (fp64, dense logical order), freed on destruction.
class DeviceReference {
 public:
  virtual ~DeviceReference() = default;
};

// "" when outputs can be compared on the device here; else why not. DNNBENCH_HOST_COMPARE=1 in
// the environment turns the device comparison off (every row is then compared on the host).
std::string device_compare_unavailable_reason();

// Uploads `values`; throws std::runtime_error when the device cannot take it.
std::unique_ptr<DeviceReference> upload_reference(const Dense& values);

// Compares `out` (device memory holding `desc`'s storage, after the stream that wrote it was
// synchronized) with `ref` by compare_values' rule. nullopt when this output's dtype or rank is
// not one the device comparison reads (fp32, fp16, bf16, fp64; rank <= 8): the host compares it.
// The result's first_mismatch is empty: the host comparison names failures.
std::optional<CompareResult> compare_on_device(const void* out, const TensorDesc& desc,
                                               const DeviceReference& ref, const Tolerance& tol);

}  // namespace dnnbench
