#pragma once
// What cuBLASLt is asked to compute for a graph: one matmul, optionally followed by a pointwise
// chain that is one of cuBLASLt's epilogues, described as column-major layouts. Pure logic (no
// cuBLASLt call), so the matching is unit-tested without a GPU.
//
// Our tensors are row-major by default and carry their layout in strides; cuBLASLt's matrices are
// column-major. A row-major C = A x B is the column-major Cᵀ = Bᵀ x Aᵀ, so the problem is posed
// in whichever orientation makes the output D an untransposed column-major matrix, and each
// input becomes a column-major layout, transposed (op T) when its contiguous dimension is the
// other one.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.hpp"

namespace dnnbench::cublaslt {

// The epilogues this provider maps (cublasLtEpilogue_t values are set by lt.cpp).
enum class Epilogue { none, bias, relu, relu_bias, gelu, gelu_bias };
std::string_view epilogue_name(Epilogue e);  // "none", "bias", "relu", "bias+relu", ...

// One operand as cuBLASLt stores it: a column-major rows x cols matrix with leading dimension ld,
// read transposed when `transposed`; `batch_stride` elements between batches (0: broadcast).
struct MatrixLayout {
  DataType dtype = DataType::unset;
  std::int64_t rows = 0, cols = 0, ld = 0;
  bool transposed = false;
  std::int64_t batch_stride = 0;
  std::int64_t uid = 0;  // the graph tensor bound to it
};

struct GemmProblem {
  // D = op(A) x op(B) in cuBLASLt's terms; A and B are the graph's b and a when `swapped`
  // (the row-major orientation, D = Cᵀ), its a and b otherwise.
  MatrixLayout a, b, d;
  std::int64_t m = 0, n = 0, k = 0;  // cuBLASLt's: D is m x n, op(A) m x k, op(B) k x n
  std::int64_t batch = 1;
  bool swapped = false;
  Epilogue epilogue = Epilogue::none;
  std::optional<std::int64_t> bias_uid;  // a vector over D's rows (m), broadcast over columns and batch
  DataType bias_dtype = DataType::unset;
  DataType compute_type = DataType::f32;  // the matmul node's compute type
  std::string summary;  // "matmul [8x512x64] x [8x64x512] bf16, epilogue bias+gelu", for notes
};

// The problem for `graph`, or an error saying why cuBLASLt cannot express it (std::string in the
// error alternative; the provider turns it into Unsupported).
struct ProblemOrReason {
  std::optional<GemmProblem> problem;
  std::string reason;
};
ProblemOrReason match_gemm(const Graph& graph);

// The one batch stride that walks an operand over the output's flattened batch: `dims` are the
// output's batch dims, `strides` the operand's batch strides aligned to them (0 where the operand
// broadcasts). nullopt when no single stride does (e.g. a [2, 1] batch broadcast against [3]).
std::optional<std::int64_t> collapse_batch_stride(const std::vector<std::int64_t>& dims,
                                                  const std::vector<std::int64_t>& strides);

// A logical r x c matrix with element strides (sr, sc) as a column-major layout; nullopt when
// neither dimension is contiguous.
std::optional<MatrixLayout> column_major_layout(std::int64_t r, std::int64_t c, std::int64_t sr,
                                                std::int64_t sc);

}  // namespace dnnbench::cublaslt
