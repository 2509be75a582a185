// Which reference judges a row: cpu-fp64 for host providers, for graphs without a convolution or
// matmul, when --cpu-reference forbids the CUDA one, or where it cannot run (a build without
// CUDA, a machine without a device).
#include <gtest/gtest.h>

#include "../support/graph_builder.hpp"
#include "reference/gpu_reference.hpp"
#include "session/graph_data.hpp"

namespace dnnbench::testing {
namespace {

Graph matmul_graph() {
  GraphBuilder builder;
  const auto a = builder.tensor("a", {3, 4}), b = builder.tensor("b", {4, 2}),
             c = builder.tensor("c", {3, 2});
  builder.node("MatmulAttributes", OpKind::matmul, {{"a", a}, {"b", b}}, {{"c", c}}, MatmulParams{});
  return builder.build();
}

Graph relu_3x4_graph() {
  GraphBuilder builder;
  const auto x = builder.tensor("x", {3, 4}), y = builder.tensor("y", {3, 4});
  PointwiseParams p;
  p.op = PointwiseOp::relu;
  builder.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", x}}, {{"out_0", y}}, p);
  return builder.build();
}

TEST(ReferenceKind, Names) {
  EXPECT_EQ(reference_kind_name(ReferenceKind::cpu_fp64), "cpu-fp64");
  EXPECT_EQ(reference_kind_name(ReferenceKind::gpu_fp32), "gpu-fp32");
}

TEST(ReferenceKind, HostProvidersAndPlainGraphsUseTheCpuReference) {
  const Graph matmul = matmul_graph(), relu = relu_3x4_graph();
  EXPECT_TRUE(has_gpu_reference_node(matmul));
  EXPECT_FALSE(has_gpu_reference_node(relu));
  GraphData matmul_data(matmul, 1), relu_data(relu, 1), forbidden(matmul, 1, /*allow_gpu_reference=*/false);
  EXPECT_EQ(matmul_data.reference_kind_for(DeviceKind::host), ReferenceKind::cpu_fp64);
  EXPECT_EQ(relu_data.reference_kind_for(DeviceKind::cuda), ReferenceKind::cpu_fp64);
  EXPECT_EQ(forbidden.reference_kind_for(DeviceKind::cuda), ReferenceKind::cpu_fp64);
}

TEST(ReferenceKind, CudaProvidersUseTheGpuReferenceExactlyWhereItRuns) {
  const Graph matmul = matmul_graph();
  GraphData data(matmul, 1);
  const bool runs_here = gpu_reference_unavailable_reason().empty();
  EXPECT_EQ(data.reference_kind_for(DeviceKind::cuda),
            runs_here ? ReferenceKind::gpu_fp32 : ReferenceKind::cpu_fp64);
}

}  // namespace
}  // namespace dnnbench::testing
