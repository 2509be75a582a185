#pragma once
// Providers built as modules (shared objects the binary loads only when they are asked for), for
// libraries too heavy to load at every start (LibTorch: ~300 shared libraries).
#include <memory>
#include <string>

#include "providers/provider.hpp"

namespace dnnbench {

// Loads the module at `path` once (it stays loaded) and calls its `extern "C"` factory
// `factory` (a function returning a new Provider). Throws std::runtime_error naming the module
// and the loader's reason when it cannot.
std::unique_ptr<Provider> load_provider_module(const std::string& path, const char* factory);

}  // namespace dnnbench
