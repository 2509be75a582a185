// The device comparison where the build has no CUDA reference: unavailable, and every row is
// compared on the host.
#ifndef DNNBENCH_HAVE_CUDA_REFERENCE
#include <stdexcept>

#include "reference/device_compare.hpp"

namespace dnnbench {

std::string device_compare_unavailable_reason() {
  return "not built with CUDA";
}

std::unique_ptr<DeviceReference> upload_reference(const Dense&) {
  throw std::runtime_error("the device comparison is not built into this binary");
}

std::optional<CompareResult> compare_on_device(const void*, const TensorDesc&, const DeviceReference&,
                                               const Tolerance&) {
  return std::nullopt;
}

}  // namespace dnnbench
#endif
