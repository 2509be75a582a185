// graph_tensor_bytes: the byte counts the memory budget and --max-graph-bytes start from.
#include "graph/memory.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "../support/graph_builder.hpp"

namespace dnnbench {
namespace {

using testing::GraphBuilder;

TEST(GraphTensorBytes, CountsEachKindOfCopy) {
  GraphBuilder b;
  const auto x = b.tensor("x", {4, 8}, DataType::f16);           // input: 64 bytes
  const auto t = b.virtual_tensor("t", {4, 8});                  // intermediate
  const auto y = b.tensor("y", {4, 8}, DataType::f32, {16, 1});  // output, padded rows: 60 elements
  const auto eps = b.scalar("eps", 1e-5);                        // by-value: bound from the host
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", x}}, {{"out_0", t}});
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", t}, {"in_1", eps}}, {{"out_0", y}});
  const auto bytes = graph_tensor_bytes(b.build());
  EXPECT_EQ(bytes.inputs, 32 * 2);
  EXPECT_EQ(bytes.outputs, (3 * 16 + 8) * 4);
  EXPECT_EQ(bytes.storage(), 64 + 224);
  EXPECT_EQ(bytes.reference, (32 + 32 + 32 + 1) * 8);  // every tensor, logical elements, fp64
  EXPECT_EQ(bytes.output_values, 32 * 8);
}

TEST(GraphTensorBytes, SaturatesInsteadOfOverflowing) {
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(saturating_add(kMax - 1, 5), kMax);
  EXPECT_EQ(saturating_mul(kMax / 2, 3), kMax);
  EXPECT_EQ(saturating_mul(6, 7), 42);
  GraphBuilder b;
  // Each tensor fits in 64 bits on its own; their fp64 values together do not.
  const auto x = b.tensor("x", {std::int64_t{1} << 59}, DataType::i8);
  const auto y = b.tensor("y", {std::int64_t{1} << 59}, DataType::i8);
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", x}}, {{"out_0", y}});
  const auto bytes = graph_tensor_bytes(b.build());
  EXPECT_EQ(bytes.reference, kMax);
  EXPECT_EQ(bytes.storage(), std::int64_t{1} << 60);
}

TEST(DescribeBytes, SaysUnitAndExactCount) {
  EXPECT_EQ(describe_bytes(3 << 20), "3.00 MiB (3145728 bytes)");
  EXPECT_EQ(describe_bytes(std::int64_t{5} << 30), "5.00 GiB (5368709120 bytes)");
}

}  // namespace
}  // namespace dnnbench
