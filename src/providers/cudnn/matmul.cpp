// Matmul: C = A x B, batched. Our graphs allow rank 2..n with broadcast batch dims; cuDNN wants
// every operand at the same rank with 1s where a batch broadcasts, which the common padded rank
// gives (a [M, K] operand becomes [1, M, K]).
#include "providers/cudnn/lowering.hpp"

namespace dnnbench::cudnn {

void lower_matmul(Lowering& low, const Node& node) {
  Descriptor mm(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
  set(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, low.compute_type(node));
  mm.finalize("matmul descriptor of node '" + node.name + "'");
  const Descriptor& kept = low.keep(std::move(mm));

  Descriptor op(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
  set(op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, low.tensor(input_uid(node, "a")));
  set(op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, low.tensor(input_uid(node, "b")));
  set(op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, low.tensor(output_uid(node, "c")));
  set(op, CUDNN_ATTR_OPERATION_MATMUL_DESC, kept);
  op.finalize("matmul operation of node '" + node.name + "'");
  low.add_op(std::move(op), "matmul");
}

}  // namespace dnnbench::cudnn
