// Matmul: C = A x B, batched. Our graphs allow rank 2..n with broadcast batch dims; cuDNN wants
// every operand at the same rank with 1s where a batch broadcasts, which the common padded rank
// gives (a [M, K] operand becomes [1, M, K]).
#include "providers/cudnn/lowering.hpp"

namespace dnnbench::cudnn {

namespace {

// An operand's shape with its broadcast batch dims spelled out: where the operand has 1 and the
// output more, the dim takes the output's extent with stride 0 (every batch reads the same matrix).
Shape expand_batch(Shape s, const Shape& out) {
  for (std::size_t k = 0; k + 2 < s.dims.size() && k < out.dims.size(); ++k)
    if (s.dims[k] == 1 && out.dims[k] > 1) {
      s.dims[k] = out.dims[k];
      s.strides[k] = 0;
    }
  return s;
}

}  // namespace

void lower_matmul(Lowering& low, const Node& node) {
  Descriptor mm(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
  set(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, low.compute_type(node));
  mm.finalize("matmul descriptor of node '" + node.name + "'");
  const Descriptor& kept = low.keep(std::move(mm));

  Descriptor op(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
  const std::int64_t a = input_uid(node, "a"), b = input_uid(node, "b");
  if (lowering_variant("mm_stride0")) {
    const Shape c = low.shape_of(output_uid(node, "c"));
    set(op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, low.tensor(a, expand_batch(low.shape_of(a), c)));
    set(op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, low.tensor(b, expand_batch(low.shape_of(b), c)));
  } else {
    set(op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, low.tensor(a));
    set(op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, low.tensor(b));
  }
  set(op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, low.tensor(output_uid(node, "c")));
  set(op, CUDNN_ATTR_OPERATION_MATMUL_DESC, kept);
  op.finalize("matmul operation of node '" + node.name + "'");
  low.add_op(std::move(op), "matmul");
}

}  // namespace dnnbench::cudnn
