#pragma once
// GraphBuilder: builds Graph objects in memory for unit tests, without going through JSON.
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "graph/graph.hpp"
#include "tensor/dense.hpp"

namespace dnnbench::testing {

// Strides of `dims` (N, C, spatial...) stored channels-last (NHWC / NDHWC).
inline std::vector<std::int64_t> channels_last_strides(const std::vector<std::int64_t>& dims) {
  std::vector<std::int64_t> strides(dims.size());
  std::int64_t s = 1;
  strides[1] = s;
  s *= dims[1];
  for (std::size_t k = dims.size(); k-- > 2;) {
    strides[k] = s;
    s *= dims[k];
  }
  strides[0] = s;
  return strides;
}

class GraphBuilder {
 public:
  explicit GraphBuilder(std::string name = "test_graph", DataType io = DataType::f32) {
    graph_.name = std::move(name);
    graph_.io_type = io;
    graph_.compute_type = DataType::f32;
    graph_.intermediate_type = DataType::f32;
  }

  // Adds a tensor; strides default to C order. Returns its uid.
  std::int64_t tensor(const std::string& name, std::vector<std::int64_t> dims, DataType dtype = DataType::f32,
                      std::vector<std::int64_t> strides = {}, bool is_virtual = false) {
    TensorDesc t;
    t.uid = next_uid_++;
    t.name = name;
    t.strides = strides.empty() ? c_order_strides(dims) : std::move(strides);
    t.dims = std::move(dims);
    t.dtype = dtype;
    t.is_virtual = is_virtual;
    graph_.tensors.push_back(t);
    return t.uid;
  }
  std::int64_t virtual_tensor(const std::string& name, std::vector<std::int64_t> dims) {
    return tensor(name, std::move(dims), DataType::f32, {}, true);
  }
  // A by-value scalar such as epsilon.
  std::int64_t scalar(const std::string& name, double value) {
    const auto uid = tensor(name, {1}, DataType::f64);
    graph_.tensors.back().scalar_value = value;
    return uid;
  }

  Node& node(const std::string& type, OpKind kind, std::vector<Port> inputs, std::vector<Port> outputs,
             OpParams params = {}) {
    Node n;
    n.name = type + "_" + std::to_string(graph_.nodes.size());
    n.type = type;
    n.kind = kind;
    n.compute_type = DataType::f32;
    n.inputs = std::move(inputs);
    n.outputs = std::move(outputs);
    n.params = std::move(params);
    graph_.nodes.push_back(std::move(n));
    return graph_.nodes.back();
  }

  Graph& graph() { return graph_; }
  Graph build() const { return graph_; }

 private:
  Graph graph_;
  std::int64_t next_uid_ = 1;
};

// x [side, side] fp32 -> relu -> y: the smallest graph every provider runs, for tests of the
// machinery around a row (timing, memory, planting) rather than of an op.
inline Graph relu_square_graph(std::int64_t side) {
  GraphBuilder b("relu");
  const auto x = b.tensor("x", {side, side});
  const auto y = b.tensor("y", {side, side});
  PointwiseParams relu;
  relu.op = PointwiseOp::relu;
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", x}}, {{"out_0", y}}, relu);
  return b.build();
}

}  // namespace dnnbench::testing
