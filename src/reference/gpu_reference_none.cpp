// The CUDA reference where the build has no CUDA: it reports why it cannot run, and the CPU
// reference judges every row.
#ifndef DNNBENCH_HAVE_CUDA_REFERENCE
#include <stdexcept>

#include "reference/gpu_reference.hpp"

namespace dnnbench {

std::string gpu_reference_unavailable_reason() {
  return "not built with CUDA";
}

bool gpu_reference_node(const Graph&, const Node&, Values&) {
  throw std::runtime_error("the CUDA reference is not built into this binary");
}

}  // namespace dnnbench
#endif
