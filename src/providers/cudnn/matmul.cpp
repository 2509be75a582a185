// Matmul: C = A x B, batched. cuDNN's matmul is 3-D, [B, M, K] x [B, K, N] -> [B, M, N], with an
// operand of batch 1 read by every batch. Our graphs allow rank 2..n with broadcast batch dims:
// a lone matmul's batch dims are merged into one (graph/views.hpp); where they cannot be (a
// batch broadcast on both sides, [2, 1] x [1, 3]), cuDNN sees the padded rank and refuses
// ("!(a_layout == RowMajor || ColumnMajor)", measured on the H200, cuDNN 9.14). A matmul inside
// a fused graph keeps the graph's common padded rank (a [M, K] operand becomes [1, M, K]). A lone
// matmul whose B is shared by every batch runs as one GEMM (fold_batch_into_rows).
#include "graph/views.hpp"
#include "providers/cudnn/lowering.hpp"

namespace dnnbench::cudnn {

namespace {

// `s` (the padded shape) with its batch dims merged into one: [count, rows, cols].
std::optional<Shape> three_d(const Shape& s, const std::vector<std::int64_t>& out_batch) {
  const std::size_t r = s.dims.size();
  const std::vector<std::int64_t> dims(s.dims.begin(), s.dims.end() - 2),
      strides(s.strides.begin(), s.strides.end() - 2);
  const auto batch = merged_batch(dims, strides, out_batch);
  if (!batch) return std::nullopt;
  const std::int64_t rows = s.dims[r - 2], cols = s.dims[r - 1];
  // One matrix for every batch: batch 1, its stride the matrix's span (packed in cuDNN's eyes).
  const std::int64_t span = std::max(rows * s.strides[r - 2], cols * s.strides[r - 1]);
  return Shape{{batch->count, rows, cols},
               {batch->count == 1 ? span : batch->stride, s.strides[r - 2], s.strides[r - 1]}};
}

// [count, M, K] x [1, K, N] -> [count, M, N], as one [1, count * M, K] x [1, K, N] GEMM, where
// A's and C's batches follow each other row after row (batch stride = M x row stride). PyTorch
// and cuBLAS users get this for a weight shared by every batch; cuDNN 9.14's eng0 on the
// broadcast form left every batch after the first unwritten (H200, matmul_broadcast_weights_fp16).
bool fold_batch_into_rows(Shape& a, const Shape& b, Shape& c) {
  const std::int64_t count = a.dims[0], rows = a.dims[1];
  if (count <= 1 || b.dims[0] != 1 || c.dims[0] != count) return false;
  if (a.strides[0] != rows * a.strides[1] || c.strides[0] != rows * c.strides[1]) return false;
  // Rows must be the slow dim of each matrix (row-major); a column-major A has no such run.
  if (a.strides[1] < a.strides[2] || c.strides[1] < c.strides[2]) return false;
  a = Shape{{1, count * rows, a.dims[2]}, {count * a.strides[0], a.strides[1], a.strides[2]}};
  c = Shape{{1, count * rows, c.dims[2]}, {count * c.strides[0], c.strides[1], c.strides[2]}};
  return true;
}

}  // namespace

void lower_matmul(Lowering& low, const Node& node) {
  Descriptor mm(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
  set(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, low.compute_type(node));
  mm.finalize("matmul descriptor of node '" + node.name + "'");
  const Descriptor& kept = low.keep(std::move(mm));

  const std::int64_t a = input_uid(node, "a"), b = input_uid(node, "b"), c = output_uid(node, "c");
  const Shape c_shape = low.shape_of(c);
  std::optional<Shape> a3, b3, c3;
  bool folded = false;
  if (c_shape.dims.size() >= 3 && low.graph().nodes.size() == 1) {
    const std::vector<std::int64_t> out_batch(c_shape.dims.begin(), c_shape.dims.end() - 2);
    a3 = three_d(low.shape_of(a), out_batch);
    b3 = three_d(low.shape_of(b), out_batch);
    c3 = three_d(c_shape, out_batch);
    if (!a3 || !b3 || !c3)
      low.hint(
          "cuDNN's matmul has one batch dim ([B, M, K] x [B, K, N]); these batch dims merge into none (a "
          "batch "
          "broadcast on both sides, or batches that are no single strided run): broadcast one operand only");
    if (a3 && b3 && c3) folded = fold_batch_into_rows(*a3, *b3, *c3);
  }
  Descriptor op(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
  if (a3 && b3 && c3) {
    set(op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, low.tensor(a, a3));
    set(op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, low.tensor(b, b3));
    set(op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, low.tensor(c, c3));
  } else {
    set(op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, low.tensor(a));
    set(op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, low.tensor(b));
    set(op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, low.tensor(c));
  }
  set(op, CUDNN_ATTR_OPERATION_MATMUL_DESC, kept);
  op.finalize("matmul operation of node '" + node.name + "'");
  low.add_op(std::move(op), folded ? "matmul (batch folded into M)" : "matmul");
}

}  // namespace dnnbench::cudnn
