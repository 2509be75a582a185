#pragma once
// Names of the GPU work a KernelRecorder reports beside kernels (the memsets and copies an
// execution enqueues), and how a consumer tells them apart: such names start with '[', which no
// kernel's (mangled or demangled) name does. Kernel sums and comparisons with Nsight Compute,
// which profiles kernels only, leave them out; kernel lists keep them.
#include <cstdint>
#include <string>
#include <string_view>

namespace dnnbench {

inline std::string memset_activity_name(std::uint64_t bytes) {
  return "[memset " + std::to_string(bytes) + " bytes]";
}
inline std::string memcpy_activity_name(std::uint64_t bytes) {
  return "[memcpy " + std::to_string(bytes) + " bytes]";
}
inline bool is_kernel_name(std::string_view name) {
  return name.empty() || name.front() != '[';
}

}  // namespace dnnbench
