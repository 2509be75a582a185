#include "reference/reference.hpp"

#include "reference/node_io.hpp"

namespace dnnbench {

void run_reference(const Graph& graph, Values& values, const NodeOverride& node_override) {
  // By-value scalars (epsilon, ...) need no binding: take them from the graph when absent.
  for (const auto& tensor : graph.tensors)
    if (tensor.scalar_value && !values.contains(tensor.uid))
      values[tensor.uid] = Dense(tensor.dims, *tensor.scalar_value);
  for (const auto& node : graph.nodes) {
    if (node_override && node_override(graph, node, values)) continue;
    switch (node.kind) {
      case OpKind::conv_fwd:
      case OpKind::conv_bwd_data:
      case OpKind::conv_bwd_weights:
        reference_conv(graph, node, values);
        break;
      case OpKind::matmul:
        reference_matmul(graph, node, values);
        break;
      case OpKind::pointwise:
        reference_pointwise(graph, node, values);
        break;
      case OpKind::batchnorm_inference:
        reference_batchnorm(graph, node, values);
        break;
      case OpKind::batchnorm_training:
        reference_batchnorm_training(graph, node, values);
        break;
      case OpKind::batchnorm_backward:
        reference_batchnorm_backward(graph, node, values);
        break;
      case OpKind::layernorm:
        reference_layernorm(graph, node, values);
        break;
      case OpKind::rmsnorm:
        reference_rmsnorm(graph, node, values);
        break;
      case OpKind::reduction:
        reference_reduction(graph, node, values);
        break;
      case OpKind::resample:
        reference_resample(graph, node, values);
        break;
      case OpKind::sdpa_fwd:
      case OpKind::sdpa_bwd:
        reference_sdpa(graph, node, values);
        break;
      case OpKind::unsupported:
        ref::fail(node, "op type '" + node.type + "' is not supported by the reference");
    }
  }
}

}  // namespace dnnbench
