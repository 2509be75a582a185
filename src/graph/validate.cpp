#include "graph/validate.hpp"

#include <algorithm>
#include <unordered_map>
#include <utility>

#include "graph/errors.hpp"
#include "graph/memory.hpp"
#include "graph/ops/common.hpp"
#include "graph/ops/op_rules.hpp"

namespace dnnbench {
namespace {

std::string tensor_path(std::size_t index) {
  return index_path("tensors", index);
}
std::string node_path(std::size_t index) {
  return index_path("nodes", index);
}

std::string label(const TensorDesc& t) {
  return "tensor " + std::to_string(t.uid) + " (\"" + t.name + "\")";
}

// The graph-wide defaults: compute falls back to fp32, intermediates to the compute type.
void resolve_graph_types(Graph& graph) {
  if (graph.compute_type == DataType::unset) graph.compute_type = DataType::f32;
  if (graph.intermediate_type == DataType::unset) graph.intermediate_type = graph.compute_type;
  for (auto& node : graph.nodes)
    if (node.compute_type == DataType::unset) node.compute_type = graph.compute_type;
}

void check_dtype(TensorDesc& t, const Graph& graph, const std::string& path) {
  const std::string dpath = join_path(path, "data_type");
  if (t.is_virtual) {
    if (t.dtype == DataType::unset) t.dtype = graph.intermediate_type;
    if (!dtype_is_floating(t.dtype))
      throw InputError(graph.source_path, dpath,
                       "virtual " + label(t) + " has data type " + std::string(dtype_name(t.dtype)) +
                           "; expected a floating type for an intermediate");
    return;
  }
  if (!dtype_has_storage(t.dtype))
    throw InputError(graph.source_path, dpath,
                     label(t) + " has data type " + std::string(dtype_name(t.dtype)) +
                         ", which dnnbench cannot store; expected one of " +
                         std::string(storable_dtype_list()));
}

// Dims, strides and sizes of one tensor; sizes are computed without 64-bit overflow.
void check_layout(const TensorDesc& t, const std::string& file, const std::string& path) {
  const std::string dims_path = join_path(path, "dims"), strides_path = join_path(path, "strides");
  if (t.dims.empty()) throw InputError(file, dims_path, "dims is empty; expected at least one dimension");
  for (std::size_t k = 0; k < t.dims.size(); ++k)
    if (t.dims[k] < 1)
      throw InputError(
          file, index_path(dims_path, k),
          "dimension must be >= 1, got " + std::to_string(t.dims[k]) + " (dims " + dims_string(t.dims) + ")");
  if (t.strides.size() != t.dims.size())
    throw InputError(file, strides_path,
                     "strides has " + std::to_string(t.strides.size()) + " entries but dims has " +
                         std::to_string(t.dims.size()) + "; expected one stride per dimension");
  for (std::size_t k = 0; k < t.strides.size(); ++k) {
    if (t.strides[k] < 0)
      throw InputError(file, index_path(strides_path, k),
                       "stride must be >= 0, got " + std::to_string(t.strides[k]));
    if (t.strides[k] == 0 && t.dims[k] > 1)
      throw InputError(file, index_path(strides_path, k),
                       "stride is 0 on a dimension of size " + std::to_string(t.dims[k]) +
                           "; expected >= 1 (only size-1 dimensions may have stride 0)");
  }
  std::int64_t count = 1;
  for (auto d : t.dims)
    if (__builtin_mul_overflow(count, d, &count))
      throw InputError(file, dims_path, "dims product overflows 64 bits (dims " + dims_string(t.dims) + ")");
  std::int64_t last = 0;  // largest storage offset
  for (std::size_t k = 0; k < t.dims.size(); ++k) {
    std::int64_t reach = 0;
    if (__builtin_mul_overflow(t.dims[k] - 1, t.strides[k], &reach) ||
        __builtin_add_overflow(last, reach, &last))
      throw InputError(file, strides_path,
                       "storage size overflows 64 bits (dims " + dims_string(t.dims) + ", strides " +
                           dims_string(t.strides) + ")");
  }
  std::int64_t bytes = 0;
  if (__builtin_add_overflow(last, 1, &last) ||
      __builtin_mul_overflow(std::max(last, count), static_cast<std::int64_t>(dtype_size(t.dtype)), &bytes))
    throw InputError(
        file, dims_path,
        "dims product overflows 64 bits when counted in bytes (dims " + dims_string(t.dims) + ")");
  if (t.is_by_value() && count != 1)
    throw InputError(file, join_path(path, "value"),
                     "a by-value scalar must have exactly one element; dims are " + dims_string(t.dims));
}

// No two logical indices of an output may share a storage element: with the dims of size > 1
// ordered by stride, each stride must step past everything the smaller strides reach.
void check_non_overlapping(const TensorDesc& t, const std::string& file, const std::string& path) {
  std::vector<std::pair<std::int64_t, std::int64_t>> by_stride;  // (stride, dim)
  for (std::size_t k = 0; k < t.dims.size(); ++k)
    if (t.dims[k] > 1) by_stride.emplace_back(t.strides[k], t.dims[k]);
  std::sort(by_stride.begin(), by_stride.end());
  for (std::size_t k = 1; k < by_stride.size(); ++k) {
    std::int64_t span = 0;
    const bool overflow = __builtin_mul_overflow(by_stride[k - 1].first, by_stride[k - 1].second, &span);
    if (overflow || by_stride[k].first < span)
      throw InputError(
          file, join_path(path, "strides"),
          "output " + label(t) + " has overlapping strides " + dims_string(t.strides) + " for dims " +
              dims_string(t.dims) +
              ": two indices would write the same element; expected each stride to be at least the "
              "next smaller stride times its dimension (e.g. packed strides)");
  }
}

// Nodes built in memory without settings get their family's defaults.
void ensure_params(Node& node) {
  if (!std::holds_alternative<std::monostate>(node.params)) return;
  switch (node.kind) {
    case OpKind::conv_fwd:
    case OpKind::conv_bwd_data:
    case OpKind::conv_bwd_weights:
      node.params = ConvParams{};
      break;
    case OpKind::matmul:
      node.params = MatmulParams{};
      break;
    case OpKind::pointwise:
      node.params = PointwiseParams{};
      break;
    case OpKind::batchnorm_inference:
    case OpKind::batchnorm_training:
    case OpKind::batchnorm_backward:
      node.params = BatchnormParams{};
      break;
    case OpKind::layernorm:
      node.params = LayernormParams{};
      break;
    case OpKind::rmsnorm:
      node.params = RmsnormParams{};
      break;
    case OpKind::reduction:
      node.params = ReductionParams{};
      break;
    case OpKind::resample:
      node.params = ResampleParams{};
      break;
    case OpKind::sdpa_fwd:
    case OpKind::sdpa_bwd:
      node.params = SdpaParams{};
      break;
    case OpKind::unsupported:
      break;
  }
}

void check_nodes(const Graph& graph, const std::unordered_map<std::int64_t, std::size_t>& index_of,
                 std::unordered_map<std::int64_t, std::size_t>& producer) {
  const std::string& file = graph.source_path;
  if (graph.nodes.empty()) throw InputError(file, "nodes", "the graph has no nodes; expected at least one");

  // Every referenced uid exists; every tensor has at most one producer.
  for (std::size_t j = 0; j < graph.nodes.size(); ++j) {
    const Node& node = graph.nodes[j];
    for (const auto& [direction, ports] :
         {std::pair{"inputs", &node.inputs}, std::pair{"outputs", &node.outputs}})
      for (const Port& port : *ports) {
        const std::string path = join_path(node_path(j), port_path(direction, port.role));
        if (!index_of.count(port.uid))
          throw InputError(file, path, "uid " + std::to_string(port.uid) + " is not a tensor of the graph");
        if (std::string_view(direction) == "inputs") continue;
        const auto [it, fresh] = producer.emplace(port.uid, j);
        if (!fresh)
          throw InputError(file, path,
                           label(graph.tensors[index_of.at(port.uid)]) + " is already produced by " +
                               node_path(it->second) + " (\"" + graph.nodes[it->second].name +
                               "\"); expected one producer per tensor");
      }
  }
  // Topological order: an input is a graph input (non-virtual, produced by no node) or the
  // output of an earlier node. This also rules out cycles.
  for (std::size_t j = 0; j < graph.nodes.size(); ++j) {
    const Node& node = graph.nodes[j];
    for (const Port& port : node.inputs) {
      const std::string path = join_path(node_path(j), port_path("inputs", port.role));
      const TensorDesc& t = graph.tensors[index_of.at(port.uid)];
      const auto produced = producer.find(port.uid);
      if (produced == producer.end()) {
        if (t.is_virtual)
          throw InputError(file, path,
                           "virtual " + label(t) +
                               " is never produced; a virtual tensor must be the output of an earlier node "
                               "(graph inputs must be non-virtual)");
        continue;
      }
      if (produced->second >= j)
        throw InputError(file, path,
                         label(t) + " is produced by " + node_path(produced->second) + " (\"" +
                             graph.nodes[produced->second].name + "\"), which does not come before " +
                             node_path(j) + "; expected nodes in topological order (no cycles)");
    }
  }
  for (std::size_t i = 0; i < graph.tensors.size(); ++i) {
    const TensorDesc& t = graph.tensors[i];
    if (t.is_virtual && !producer.count(t.uid))
      throw InputError(file, join_path(tensor_path(i), "virtual"),
                       "virtual " + label(t) +
                           " is never produced; expected it to be the output of a node, or non-virtual");
  }
}

void check_budget(const Graph& graph, const ValidationLimits& limits) {
  const std::int64_t total = graph_tensor_bytes(graph).storage();
  if (total > limits.max_graph_bytes)
    throw InputError(graph.source_path, "tensors",
                     "the graph's tensors need " + describe_bytes(total) + " of storage, over the limit of " +
                         describe_bytes(limits.max_graph_bytes) +
                         "; expected a smaller graph or a higher memory limit");
}

}  // namespace

void validate_graph(Graph& graph, const ValidationLimits& limits) {
  const std::string& file = graph.source_path;
  resolve_graph_types(graph);

  std::unordered_map<std::int64_t, std::size_t> index_of;  // uid -> position in graph.tensors
  for (std::size_t i = 0; i < graph.tensors.size(); ++i) {
    TensorDesc& t = graph.tensors[i];
    const std::string path = tensor_path(i);
    if (const auto [it, fresh] = index_of.emplace(t.uid, i); !fresh)
      throw InputError(file, join_path(path, "uid"),
                       "uid " + std::to_string(t.uid) + " is already used by " + tensor_path(it->second) +
                           " (\"" + graph.tensors[it->second].name + "\"); expected unique uids");
    if (t.name.empty())
      throw InputError(file, join_path(path, "name"), "tensor name is empty; expected a name");
    check_dtype(t, graph, path);
    check_layout(t, file, path);
  }

  std::unordered_map<std::int64_t, std::size_t> producer;  // uid -> index of the node writing it
  check_nodes(graph, index_of, producer);
  for (std::size_t i = 0; i < graph.tensors.size(); ++i) {
    const TensorDesc& t = graph.tensors[i];
    if (!t.is_virtual && producer.count(t.uid)) check_non_overlapping(t, file, tensor_path(i));
  }
  check_budget(graph, limits);

  for (std::size_t j = 0; j < graph.nodes.size(); ++j) {
    Node& node = graph.nodes[j];
    const OpRules* rules = find_op_rules(node.type);
    if (!rules || node.kind == OpKind::unsupported) continue;  // skipped at run time, not an error
    ensure_params(node);
    rules->validate(graph, node, NodeContext{file, node_path(j)});
  }
}

}  // namespace dnnbench
