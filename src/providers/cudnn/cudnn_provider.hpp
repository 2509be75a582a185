#pragma once
// The cuDNN provider: a graph becomes one cuDNN operation graph; its engines are the global
// engine indices that finalize for it, in the order of cuDNN's heuristic.
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "providers/provider.hpp"

namespace dnnbench {

// `heur_mode`: "a", "b" or "fallback"; when absent, DNNBENCH_CUDNN_HEUR_MODE, else "a".
std::unique_ptr<Provider> make_cudnn_provider(std::optional<std::string> heur_mode = std::nullopt);
// Engine note of TENSOR_CORE engines on fp32 convolutions / matmuls: they compute in TF32.
inline constexpr std::string_view kTf32Note = kTf32MathNote;
// True when a CUDA device can be used (the cudnn provider is then a default provider).
bool cudnn_device_available();

}  // namespace dnnbench
