// validate_graph: the graph-wide rules (uids, layouts, types, order, budget), each with the
// expected message and JSON path.
#include "graph/validate.hpp"

#include <gtest/gtest.h>

#include "../support/graph_builder.hpp"
#include "graph/reader.hpp"
#include "graph_test_util.hpp"

namespace dnnbench {
namespace {

using testing::GraphBuilder;
using testing::pointwise_params;

// x [2, 3] -> relu -> y [2, 3]
GraphBuilder relu_graph() {
  GraphBuilder b("relu");
  const auto x = b.tensor("x", {2, 3});
  const auto y = b.tensor("y", {2, 3});
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", x}}, {{"out_0", y}},
         pointwise_params(PointwiseOp::relu));
  return b;
}

TEST(ValidateTest, AcceptsAValidGraph) {
  Graph g = relu_graph().build();
  EXPECT_NO_THROW(validate_graph(g));
}

TEST(ValidateTest, AcceptsTheFormatExampleAndDerivesGroups) {
  Graph g = parse_graph_json(testing::example_conv_json().dump(), "g.json");
  validate_graph(g);
  EXPECT_EQ(g.nodes[0].as<ConvParams>().groups, 1);
}

TEST(ValidateTest, DuplicateUid) {
  auto b = relu_graph();
  b.graph().tensors[1].uid = 1;
  Graph g = b.build();
  EXPECT_INPUT_ERROR(validate_graph(g), "tensors[1].uid", "uid 1 is already used by tensors[0] (\"x\")");
}

TEST(ValidateTest, EmptyName) {
  auto b = relu_graph();
  b.graph().tensors[0].name = "";
  Graph g = b.build();
  EXPECT_INPUT_ERROR(validate_graph(g), "tensors[0].name", "tensor name is empty");
}

TEST(ValidateTest, Dims) {
  auto b = relu_graph();
  b.graph().tensors[1].dims = {};
  b.graph().tensors[1].strides = {};
  Graph g = b.build();
  EXPECT_INPUT_ERROR(validate_graph(g), "tensors[1].dims", "dims is empty; expected at least one dimension");
  b = relu_graph();
  b.graph().tensors[1].dims = {2, 0};
  g = b.build();
  EXPECT_INPUT_ERROR(validate_graph(g), "tensors[1].dims[1]", "dimension must be >= 1, got 0");
  b = relu_graph();
  b.graph().tensors[0].dims = {-2, 3};
  g = b.build();
  EXPECT_INPUT_ERROR(validate_graph(g), "tensors[0].dims[0]", "dimension must be >= 1, got -2");
}

TEST(ValidateTest, Strides) {
  auto b = relu_graph();
  b.graph().tensors[0].strides = {3};
  Graph g = b.build();
  EXPECT_INPUT_ERROR(validate_graph(g), "tensors[0].strides", "strides has 1 entries but dims has 2");
  b = relu_graph();
  b.graph().tensors[0].strides = {3, -1};
  g = b.build();
  EXPECT_INPUT_ERROR(validate_graph(g), "tensors[0].strides[1]", "stride must be >= 0, got -1");
  b = relu_graph();
  b.graph().tensors[0].strides = {0, 1};
  g = b.build();
  EXPECT_INPUT_ERROR(validate_graph(g), "tensors[0].strides[0]", "stride is 0 on a dimension of size 2");
}

TEST(ValidateTest, ZeroStrideOnSizeOneDimIsFine) {
  GraphBuilder b;
  const auto x = b.tensor("x", {1, 3}, DataType::f32, {0, 1});
  const auto y = b.tensor("y", {1, 3});
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", x}}, {{"out_0", y}});
  Graph g = b.build();
  EXPECT_NO_THROW(validate_graph(g));
}

TEST(ValidateTest, DimsProductOverflow) {
  auto b = relu_graph();
  b.graph().tensors[0].dims = {std::int64_t{1} << 40, std::int64_t{1} << 30};
  b.graph().tensors[0].strides = {std::int64_t{1} << 30, 1};
  Graph g = b.build();
  EXPECT_INPUT_ERROR(validate_graph(g), "tensors[0].dims", "dims product overflows");
  b = relu_graph();
  b.graph().tensors[0].dims = {std::int64_t{1} << 31, std::int64_t{1} << 30};  // 2^61 elements, 2^63 bytes
  b.graph().tensors[0].strides = {std::int64_t{1} << 30, 1};
  g = b.build();
  EXPECT_INPUT_ERROR(validate_graph(g), "tensors[0].dims",
                     "dims product overflows 64 bits when counted in bytes");
  b = relu_graph();
  b.graph().tensors[0].strides = {std::int64_t{1} << 62, std::int64_t{1} << 62};
  g = b.build();
  EXPECT_INPUT_ERROR(validate_graph(g), "tensors[0].strides", "storage size overflows 64 bits");
}

TEST(ValidateTest, DataTypes) {
  auto b = relu_graph();
  b.graph().tensors[0].dtype = DataType::i64;
  Graph g = b.build();
  EXPECT_INPUT_ERROR(validate_graph(g), "tensors[0].data_type",
                     "has data type int64, which dnnbench cannot store; expected one of float, half");
  b = relu_graph();
  b.graph().tensors[1].dtype = DataType::unset;
  g = b.build();
  EXPECT_INPUT_ERROR(validate_graph(g), "tensors[1].data_type", "has data type unset");
}

TEST(ValidateTest, VirtualTypesResolveToIntermediate) {
  GraphBuilder b;
  b.graph().intermediate_type = DataType::f16;
  const auto x = b.tensor("x", {4});
  const auto t = b.tensor("t", {4}, DataType::unset, {}, true);
  const auto y = b.tensor("y", {4});
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", x}}, {{"out_0", t}});
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", t}}, {{"out_0", y}});
  Graph g = b.build();
  validate_graph(g);
  EXPECT_EQ(g.tensors[1].dtype, DataType::f16);
  g.tensors[1].dtype = DataType::i32;
  EXPECT_INPUT_ERROR(validate_graph(g), "tensors[1].data_type",
                     "expected a floating type for an intermediate");
}

TEST(ValidateTest, UnsetTypesTakeGraphDefaults) {
  auto b = relu_graph();
  b.graph().compute_type = DataType::unset;
  b.graph().intermediate_type = DataType::unset;
  b.graph().nodes[0].compute_type = DataType::unset;
  Graph g = b.build();
  validate_graph(g);
  EXPECT_EQ(g.compute_type, DataType::f32);
  EXPECT_EQ(g.intermediate_type, DataType::f32);
  EXPECT_EQ(g.nodes[0].compute_type, DataType::f32);
}

TEST(ValidateTest, ByValueScalarHasOneElement) {
  auto b = relu_graph();
  b.graph().tensors[0].scalar_value = 2.0;
  Graph g = b.build();
  EXPECT_INPUT_ERROR(validate_graph(g), "tensors[0].value",
                     "a by-value scalar must have exactly one element");
}

TEST(ValidateTest, DanglingUid) {
  auto b = relu_graph();
  b.graph().nodes[0].inputs[0].uid = 42;
  Graph g = b.build();
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.in_0_tensor_uid",
                     "uid 42 is not a tensor of the graph");
  b = relu_graph();
  b.graph().nodes[0].outputs[0].uid = 43;
  g = b.build();
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].outputs.out_0_tensor_uid", "uid 43 is not a tensor");
  b = relu_graph();
  b.graph().nodes[0].inputs.push_back({"peer_stats[1]", 44});
  g = b.build();
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.peer_stats_tensor_uid[1]", "uid 44");
}

TEST(ValidateTest, NoNodes) {
  auto b = relu_graph();
  b.graph().nodes.clear();
  Graph g = b.build();
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes", "the graph has no nodes; expected at least one");
}

// x -> relu -> t (virtual) -> relu -> y, with the nodes possibly swapped.
GraphBuilder chain() {
  GraphBuilder b("chain");
  const auto x = b.tensor("x", {4});
  const auto t = b.virtual_tensor("t", {4});
  const auto y = b.tensor("y", {4});
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", x}}, {{"out_0", t}});
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", t}}, {{"out_0", y}});
  return b;
}

TEST(ValidateTest, TopologicalOrder) {
  Graph g = chain().build();
  EXPECT_NO_THROW(validate_graph(g));
  std::swap(g.nodes[0], g.nodes[1]);
  EXPECT_INPUT_ERROR(
      validate_graph(g), "nodes[0].inputs.in_0_tensor_uid",
      "is produced by nodes[1] (\"PointwiseAttributes_0\"), which does not come before nodes[0]");
}

TEST(ValidateTest, Cycle) {
  GraphBuilder b;
  const auto a = b.tensor("a", {4});
  const auto c = b.tensor("c", {4});
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", a}}, {{"out_0", c}});
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", c}}, {{"out_0", a}});
  Graph g = b.build();
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.in_0_tensor_uid", "topological order (no cycles)");
  // A node reading its own output is a cycle too.
  GraphBuilder self;
  const auto s = self.tensor("s", {4});
  self.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", s}}, {{"out_0", s}});
  g = self.build();
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.in_0_tensor_uid",
                     "which does not come before nodes[0]");
}

TEST(ValidateTest, ProducedTwice) {
  auto b = chain();
  b.graph().nodes[1].outputs[0].uid = 2;
  b.graph().nodes[1].inputs[0].uid = 1;
  Graph g = b.build();
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[1].outputs.out_0_tensor_uid",
                     "tensor 2 (\"t\") is already produced by nodes[0]");
}

TEST(ValidateTest, VirtualNeverProduced) {
  auto b = chain();
  b.graph().nodes.erase(b.graph().nodes.begin());
  Graph g = b.build();
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.in_0_tensor_uid",
                     "virtual tensor 2 (\"t\") is never produced");
  b = relu_graph();
  b.virtual_tensor("orphan", {3});
  g = b.build();
  EXPECT_INPUT_ERROR(validate_graph(g), "tensors[2].virtual",
                     "virtual tensor 3 (\"orphan\") is never produced");
}

TEST(ValidateTest, OverlappingOutputStrides) {
  auto b = relu_graph();
  b.graph().tensors[1].strides = {1, 1};
  Graph g = b.build();
  EXPECT_INPUT_ERROR(validate_graph(g), "tensors[1].strides",
                     "has overlapping strides [1, 1] for dims [2, 3]");
  b = relu_graph();
  b.graph().tensors[1].strides = {2, 1};  // row 0 [0,1,2], row 1 [2,3,4]
  g = b.build();
  EXPECT_INPUT_ERROR(validate_graph(g), "tensors[1].strides", "overlapping");
}

TEST(ValidateTest, NonOverlappingLayoutsAccepted) {
  GraphBuilder b;
  const auto x = b.tensor("x", {2, 3}, DataType::f32, {1, 1});  // inputs may alias (read only)
  const auto y = b.tensor("y", {2, 3}, DataType::f32, {1, 2});  // column-major
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", x}}, {{"out_0", y}});
  Graph g = b.build();
  EXPECT_NO_THROW(validate_graph(g));
  g.tensors[1].strides = {10, 2};  // padded rows, gaps between elements
  EXPECT_NO_THROW(validate_graph(g));
  g.tensors[1].dims = {2, 1};
  g.tensors[1].strides = {1, 1};  // size-1 dims do not matter
  g.tensors[0].dims = {2, 1};
  EXPECT_NO_THROW(validate_graph(g));
}

TEST(ValidateTest, MemoryBudget) {
  auto b = relu_graph();
  b.graph().tensors[0].dims = {1024, 1024};
  b.graph().tensors[0].strides = {1024, 1};
  b.graph().tensors[1].dims = {1024, 1024};
  b.graph().tensors[1].strides = {1024, 1};
  Graph g = b.build();
  EXPECT_INPUT_ERROR(
      validate_graph(g, {.max_graph_bytes = 4 << 20}), "tensors",
      "the graph's tensors need 8.00 MiB (8388608 bytes) of storage, over the limit of 4.00 MiB "
      "(4194304 bytes)");
  EXPECT_NO_THROW(validate_graph(g, {.max_graph_bytes = 8 << 20}));
  g.tensors[0].dims = {1024, 1024, 1025};
  g.tensors[0].strides = {1024 * 1025, 1025, 1};
  g.tensors[1].dims = g.tensors[0].dims;
  g.tensors[1].strides = g.tensors[0].strides;
  EXPECT_INPUT_ERROR(
      validate_graph(g), "tensors",
      "need 8.01 GiB (8598323200 bytes) of storage, over the limit of 8.00 GiB (8589934592 bytes)");
}

TEST(ValidateTest, VirtualTensorsDoNotCountAgainstTheBudget) {
  Graph g = chain().build();
  EXPECT_NO_THROW(validate_graph(g, {.max_graph_bytes = 32}));  // x + y = 32 bytes; t is virtual
  EXPECT_INPUT_ERROR(validate_graph(g, {.max_graph_bytes = 31}), "tensors", "over the limit");
}

TEST(ValidateTest, UnsupportedNodesAreNotErrors) {
  GraphBuilder b;
  const auto q = b.tensor("q", {1, 2, 4, 8});
  const auto o = b.tensor("o", {1, 2, 4, 8});
  b.node("BlockScaleQuantizeAttributes", OpKind::unsupported, {{"q", q}, {"k", q}, {"v", q}}, {{"o", o}});
  Graph g = b.build();
  EXPECT_NO_THROW(validate_graph(g));
  // ... but their uids and order are still checked.
  g.nodes[0].inputs[1].uid = 99;
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.k_tensor_uid", "uid 99");
}

TEST(ValidateTest, OpRulesRunAfterGraphRules) {
  auto b = relu_graph();
  b.graph().tensors[1].dims = {3, 3};
  b.graph().tensors[1].strides = {3, 1};
  Graph g = b.build();
  EXPECT_INPUT_ERROR(validate_graph(g), "nodes[0].inputs.in_0_tensor_uid", "does not broadcast to out_0");
}

TEST(ValidateTest, ErrorsNameTheSourceFile) {
  auto b = relu_graph();
  b.graph().source_path = "graphs/relu.json";
  b.graph().tensors[0].dims = {2, 0};
  Graph g = b.build();
  try {
    validate_graph(g);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "graphs/relu.json: at tensors[0].dims[1]: dimension must be >= 1, got 0 (dims [2, 0])");
  }
}

}  // namespace
}  // namespace dnnbench
