#pragma once
// cuBLASLt, loaded at run time (dlopen) instead of linked: the library is 540 MB, and mapping and
// relocating it cost every process that links it ~0.6 s and ~210 MB of memory at start
// (measured on the 2-core CI machine), whether or not it has a GPU: every dnnbench start, every
// isolated child and every test process. It is now loaded when a cublaslt provider is created on
// a machine with a device, or when its version is asked for (list-providers).
#include <cublasLt.h>

#include <string>

namespace dnnbench::cublaslt {

// Every cuBLASLt function the provider calls: one X(name) each.
#define DNNBENCH_LT_ENTRIES(X)            \
  X(cublasLtGetVersion)                   \
  X(cublasLtGetStatusName)                \
  X(cublasLtGetStatusString)              \
  X(cublasLtCreate)                       \
  X(cublasLtDestroy)                      \
  X(cublasLtMatmul)                       \
  X(cublasLtMatmulAlgoCapGetAttribute)    \
  X(cublasLtMatmulAlgoCheck)              \
  X(cublasLtMatmulAlgoConfigGetAttribute) \
  X(cublasLtMatmulAlgoConfigSetAttribute) \
  X(cublasLtMatmulAlgoGetHeuristic)       \
  X(cublasLtMatmulAlgoGetIds)             \
  X(cublasLtMatmulAlgoInit)               \
  X(cublasLtMatmulDescCreate)             \
  X(cublasLtMatmulDescDestroy)            \
  X(cublasLtMatmulDescSetAttribute)       \
  X(cublasLtMatmulPreferenceCreate)       \
  X(cublasLtMatmulPreferenceDestroy)      \
  X(cublasLtMatmulPreferenceSetAttribute) \
  X(cublasLtMatrixLayoutCreate)           \
  X(cublasLtMatrixLayoutDestroy)          \
  X(cublasLtMatrixLayoutSetAttribute)

// The entry points the provider calls, typed from cublasLt.h so that a signature change is a
// compile error.
struct LtLibrary {
#define DNNBENCH_LT_MEMBER(name) decltype(&::name) name = nullptr;
  DNNBENCH_LT_ENTRIES(DNNBENCH_LT_MEMBER)
#undef DNNBENCH_LT_MEMBER
};

// Loads the library on first use: the toolkit's soname (libcublasLt.so.<CUBLAS_VER_MAJOR>, which
// the loader finds through the binary's run path), then the toolkit's own file. Empty when it
// loaded with every entry point; else why not (dlerror's text, a missing symbol, or a major
// version other than the headers').
const std::string& lt_library_error();
// The loaded library; throws std::runtime_error with lt_library_error() when it did not load.
const LtLibrary& lt();

}  // namespace dnnbench::cublaslt
