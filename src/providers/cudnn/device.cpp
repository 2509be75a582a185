#include "providers/cudnn/device.hpp"

#include <cudnn.h>
#include <fmt/format.h>

namespace dnnbench::cudnn {

std::string cudnn_version_string() {
  // cudnnGetVersion() is major*10000 + minor*100 + patch since cuDNN 9.
  const auto v = static_cast<long>(cudnnGetVersion());
  return fmt::format("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100);
}

std::vector<std::pair<std::string, std::string>> device_description() {
  auto props = cuda::device_description();
  if (no_device_reason()) return props;
  props.emplace_back("cudnn_version", cudnn_version_string());
  props.emplace_back("cudnn_cudart_version", std::to_string(cudnnGetCudartVersion()));
  return props;
}

}  // namespace dnnbench::cudnn
