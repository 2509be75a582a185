#include "providers/cublaslt/lt_library.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <stdexcept>

namespace dnnbench::cublaslt {

namespace {

struct Loaded {
  LtLibrary library;
  std::string error;
};

Loaded load() {
  Loaded out;
  const std::string soname = fmt::format("libcublasLt.so.{}", CUBLAS_VER_MAJOR);
  // The library stays loaded for the process's life (never dlclose'd: plans may outlive any
  // owner we could give it).
  void* handle = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  std::string why = handle ? "" : dlerror();
#ifdef DNNBENCH_CUBLASLT_LIBRARY
  if (!handle) {
    handle = dlopen(DNNBENCH_CUBLASLT_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!handle) why += fmt::format("; {}", dlerror());
  }
#endif
  if (!handle) {
    out.error = fmt::format("cuBLASLt could not be loaded: {}", why);
    return out;
  }
  std::string missing;
#define DNNBENCH_LT_RESOLVE(name)                                               \
  out.library.name = reinterpret_cast<decltype(&::name)>(dlsym(handle, #name)); \
  if (!out.library.name) missing += (missing.empty() ? "" : ", ") + std::string(#name);
  DNNBENCH_LT_ENTRIES(DNNBENCH_LT_RESOLVE)
#undef DNNBENCH_LT_RESOLVE
  if (!missing.empty()) {
    out.error = fmt::format("the cuBLASLt library loaded ({}) lacks {}", soname, missing);
    return out;
  }
  // The entry points are typed from this build's headers: another major version may differ.
  const auto major = out.library.cublasLtGetVersion() / 10000;
  if (major != CUBLAS_VER_MAJOR)
    out.error =
        fmt::format("the cuBLASLt library loaded is version {}, but dnnbench was built with {}'s headers",
                    major, CUBLAS_VER_MAJOR);
  return out;
}

const Loaded& loaded() {
  static const Loaded instance = load();
  return instance;
}

}  // namespace

const std::string& lt_library_error() {
  return loaded().error;
}

const LtLibrary& lt() {
  const auto& l = loaded();
  if (!l.error.empty()) throw std::runtime_error(l.error);
  return l.library;
}

}  // namespace dnnbench::cublaslt
