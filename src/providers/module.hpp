#pragma once
// Providers built as modules (shared objects the binary loads only when they are asked for), for
// libraries too heavy to load at every start (LibTorch: ~300 shared libraries).
#include <memory>
#include <string>

#include "providers/provider.hpp"

namespace dnnbench {

// Loads the module at `path` once (it stays loaded) and calls its `extern "C"` factory
// `factory` (a function returning a new Provider). A module that cannot load (a missing library
// or symbol: on the H200 a LibTorch module once missed a libfmt symbol) gives a provider named
// `name` that is unusable with the loader's reason: its rows are skipped with it, and the run's
// other providers go on. It used to throw, which aborted every isolated child of the run.
std::unique_ptr<Provider> load_provider_module(const std::string& name, const std::string& path,
                                               const char* factory);

}  // namespace dnnbench
