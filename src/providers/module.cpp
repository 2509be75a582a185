#include "providers/module.hpp"

#include <dlfcn.h>

#include <stdexcept>

namespace dnnbench {

std::unique_ptr<Provider> load_provider_module(const std::string& path, const char* factory) {
  // RTLD_NOW: a missing library or symbol fails here, with its name, not at the first call.
  // Never closed: the provider's code and its library's state live until exit.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw std::runtime_error("cannot load provider module " + path + ": " + dlerror());
  void* symbol = dlsym(handle, factory);
  if (!symbol) throw std::runtime_error("provider module " + path + " has no " + factory);
  using Factory = Provider* (*)();
  return std::unique_ptr<Provider>(reinterpret_cast<Factory>(symbol)());
}

}  // namespace dnnbench
