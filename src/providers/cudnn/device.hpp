#pragma once
// The CUDA side of the cuDNN provider: the shared GPU-provider pieces (providers/cuda/device.hpp)
// under this provider's names, plus cuDNN's versions in the device description.
#include <string>
#include <utility>
#include <vector>

#include "providers/cuda/device.hpp"

namespace dnnbench::cudnn {

using cuda::cuda_check;
using cuda::cuda_runtime_version_string;
using cuda::cuda_stream_of;
using cuda::CudaProvider;
using cuda::CudaStream;
using cuda::DeviceMemory;
using cuda::no_device_reason;

// The shared description plus the cuDNN loaded and the CUDA runtime it was built for.
std::vector<std::pair<std::string, std::string>> device_description();
// "9.14.0" from cudnnGetVersion() (the library loaded, not the header built against).
std::string cudnn_version_string();

}  // namespace dnnbench::cudnn
