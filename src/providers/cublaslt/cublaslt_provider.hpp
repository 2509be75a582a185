#pragma once
// The cuBLASLt provider: a graph that is one matmul (batched, broadcast batch by stride 0),
// optionally followed by a bias add and/or a relu or tanh-GELU, becomes one cublasLtMatmul with
// that epilogue. Its engines are the algo ids cublasLtMatmulAlgoGetIds lists, in the order
// cublasLtMatmulAlgoGetHeuristic ranks them; a plan is an algo id plus its config attributes.
#include <memory>

#include "providers/provider.hpp"

namespace dnnbench {

std::unique_ptr<Provider> make_cublaslt_provider();

}  // namespace dnnbench
