#pragma once
// The torch provider: the graph run as PyTorch's ATen eager ops (LibTorch) on dnnbench's own
// buffers and, on CUDA, on dnnbench's stream — "what would PyTorch do" as rows timed and checked
// like every other provider's. No LibTorch header is included here: only the provider's own
// translation units pay for them. Built as a module (libdnnbench_torch.so) that dnnbench loads
// only when the provider is asked for.
#include <memory>

#include "providers/provider.hpp"

namespace dnnbench {

std::unique_ptr<Provider> make_torch_provider();

}  // namespace dnnbench

// The module's factory (providers/module.hpp): a new torch provider, owned by the caller.
extern "C" dnnbench::Provider* dnnbench_make_torch_provider();
