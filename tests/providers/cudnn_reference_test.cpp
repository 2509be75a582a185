// The CUDA reference kernels against the fp64 CPU reference: convolution forward, backward data
// and backward weights over 1-D, 2-D and 3-D cases with groups, stride, dilation, asymmetric
// padding and CONVOLUTION mode; batched matmul with broadcast batch dims; a graph mixing a GPU
// node with CPU nodes. Built with the cudnn provider (dnnbench_gpu_tests, label `gpu`); skipped
// where no CUDA device is.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../reference/reference_test_support.hpp"
#include "reference/gpu_reference.hpp"
#include "session/graph_data.hpp"
#include "tensor/compare.hpp"

namespace dnnbench::testing {
namespace {

#define REQUIRE_GPU_REFERENCE() \
  if (const auto why = gpu_reference_unavailable_reason(); !why.empty()) GTEST_SKIP() << why

struct ConvCase {
  std::string name;
  std::vector<std::int64_t> x_dims;  // N, C, spatial...
  std::int64_t k = 1, groups = 1;
  std::vector<std::int64_t> kernel, pre, post, stride, dilation;
  bool cross_correlation = true;

  std::vector<std::int64_t> w_dims() const {
    std::vector<std::int64_t> d{k, x_dims[1] / groups};
    d.insert(d.end(), kernel.begin(), kernel.end());
    return d;
  }
  std::vector<std::int64_t> y_dims() const {
    std::vector<std::int64_t> d{x_dims[0], k};
    for (std::size_t s = 0; s < kernel.size(); ++s)
      d.push_back((x_dims[2 + s] + pre[s] + post[s] - dilation[s] * (kernel[s] - 1) - 1) / stride[s] + 1);
    return d;
  }
};

std::vector<ConvCase> cases() {
  return {
      {"basic_2d", {2, 3, 5, 6}, 4, 1, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
      {"groups_stride2", {2, 4, 7, 8}, 6, 2, {3, 2}, {1, 0}, {1, 1}, {2, 2}, {1, 1}},
      {"dilation_asymmetric_padding", {1, 3, 9, 7}, 2, 1, {3, 3}, {2, 0}, {0, 3}, {1, 2}, {2, 3}},
      {"depthwise", {1, 4, 5, 5}, 4, 4, {3, 3}, {1, 1}, {1, 1}, {2, 2}, {1, 1}},
      {"convolution_mode", {1, 2, 5, 6}, 3, 1, {2, 3}, {1, 0}, {0, 2}, {1, 2}, {1, 1}, false},
      {"stride_beyond_kernel", {1, 2, 7, 7}, 2, 1, {1, 1}, {0, 0}, {0, 0}, {3, 3}, {1, 1}},
      {"3d", {1, 4, 4, 5, 6}, 4, 2, {3, 2, 3}, {1, 0, 1}, {0, 1, 1}, {2, 1, 2}, {1, 2, 1}},
      {"3d_convolution_mode",
       {2, 2, 3, 4, 4},
       2,
       1,
       {2, 2, 3},
       {0, 1, 1},
       {1, 0, 1},
       {1, 2, 1},
       {2, 1, 1},
       false},
      {"1d", {2, 3, 11}, 2, 1, {3}, {2}, {1}, {2}, {2}},
      // Long reductions: 64 channels x 9 taps, and backward weights over 2 x 16 x 16 positions.
      {"long_reduction", {2, 64, 16, 16}, 32, 1, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
  };
}

struct NodeShape {
  OpKind kind;
  const char* type;
  const char* roles[3];  // two inputs, one output
};

constexpr NodeShape kForward{OpKind::conv_fwd, "ConvolutionFwdAttributes", {"x", "w", "y"}};
constexpr NodeShape kBackwardData{OpKind::conv_bwd_data, "ConvolutionBwdAttributes", {"dy", "w", "dx"}};
constexpr NodeShape kBackwardWeights{OpKind::conv_bwd_weights, "ConvolutionWrwAttributes", {"x", "dy", "dw"}};

// The output of one conv node from the CPU reference and from the CUDA reference.
std::pair<Dense, Dense> both_references(const NodeShape& shape, const ConvCase& c) {
  std::vector<std::int64_t> a_dims, b_dims, out_dims;
  if (shape.kind == OpKind::conv_fwd) a_dims = c.x_dims, b_dims = c.w_dims(), out_dims = c.y_dims();
  if (shape.kind == OpKind::conv_bwd_data) a_dims = c.y_dims(), b_dims = c.w_dims(), out_dims = c.x_dims;
  if (shape.kind == OpKind::conv_bwd_weights) a_dims = c.x_dims, b_dims = c.y_dims(), out_dims = c.w_dims();
  GraphBuilder builder;
  const auto ua = builder.tensor(shape.roles[0], a_dims), ub = builder.tensor(shape.roles[1], b_dims);
  const auto uo = builder.tensor(shape.roles[2], out_dims);
  ConvParams p{c.cross_correlation, c.pre, c.post, c.stride, c.dilation, c.groups};
  builder.node(shape.type, shape.kind, {{shape.roles[0], ua}, {shape.roles[1], ub}}, {{shape.roles[2], uo}},
               p);
  Values cpu{{ua, seeded(a_dims, 1)}, {ub, seeded(b_dims, 2)}};
  Values gpu = cpu;
  run_reference(builder.graph(), cpu);
  run_reference(builder.graph(), gpu, gpu_reference_node);
  return {cpu.at(uo), gpu.at(uo)};
}

// fp32 accumulation against fp64: the default fp32 tolerance at the node's reduction length.
void expect_close(const Dense& cpu, const Dense& gpu, std::int64_t reduction, const std::string& what) {
  const auto r = compare_values(gpu, cpu, default_tolerance(DataType::f32, reduction));
  EXPECT_TRUE(r.passed) << what << ": " << r.first_mismatch << " (max rel " << r.max_rel_diff << ")";
  EXPECT_GT(r.elements, 0) << what;
}

TEST(CudaReference, ConvolutionForwardMatchesCpu) {
  REQUIRE_GPU_REFERENCE();
  for (const auto& c : cases()) {
    const auto [cpu, gpu] = both_references(kForward, c);
    expect_close(cpu, gpu, c.x_dims[1] / c.groups * product(c.kernel), c.name);
  }
}

TEST(CudaReference, ConvolutionBackwardDataMatchesCpu) {
  REQUIRE_GPU_REFERENCE();
  for (const auto& c : cases()) {
    const auto [cpu, gpu] = both_references(kBackwardData, c);
    expect_close(cpu, gpu, c.k / c.groups * product(c.kernel), c.name);
  }
}

TEST(CudaReference, ConvolutionBackwardWeightsMatchesCpu) {
  REQUIRE_GPU_REFERENCE();
  for (const auto& c : cases()) {
    const auto [cpu, gpu] = both_references(kBackwardWeights, c);
    const auto y = c.y_dims();
    expect_close(cpu, gpu, product(y) / c.k, c.name);
  }
}

TEST(CudaReference, BatchedMatmulWithBroadcastMatchesCpu) {
  REQUIRE_GPU_REFERENCE();
  GraphBuilder builder;
  const auto a = builder.tensor("a", {2, 1, 5, 70}), b = builder.tensor("b", {3, 70, 4});
  const auto c = builder.tensor("c", {2, 3, 5, 4});
  builder.node("MatmulAttributes", OpKind::matmul, {{"a", a}, {"b", b}}, {{"c", c}}, MatmulParams{});
  Values cpu{{a, seeded({2, 1, 5, 70}, 3)}, {b, seeded({3, 70, 4}, 4)}};
  Values gpu = cpu;
  run_reference(builder.graph(), cpu);
  run_reference(builder.graph(), gpu, gpu_reference_node);
  expect_close(cpu.at(c), gpu.at(c), 70, "broadcast matmul");
}

TEST(CudaReference, LeavesFp64NodesToTheCpu) {
  REQUIRE_GPU_REFERENCE();
  GraphBuilder builder("fp64", DataType::f64);
  const auto a = builder.tensor("a", {3, 4}, DataType::f64), b = builder.tensor("b", {4, 2}, DataType::f64);
  const auto c = builder.tensor("c", {3, 2}, DataType::f64);
  builder.node("MatmulAttributes", OpKind::matmul, {{"a", a}, {"b", b}}, {{"c", c}}, MatmulParams{});
  Values values{{a, seeded({3, 4}, 5)}, {b, seeded({4, 2}, 6)}};
  EXPECT_FALSE(gpu_reference_node(builder.graph(), builder.graph().nodes.front(), values));
  EXPECT_FALSE(values.contains(c));
}

// conv -> add bias -> relu: GraphData judges a CUDA provider's rows by gpu-fp32 (the conv on the
// GPU, the pointwise nodes on the CPU), host providers' by cpu-fp64, and both agree.
TEST(CudaReference, GraphDataMixesGpuAndCpuNodes) {
  REQUIRE_GPU_REFERENCE();
  GraphBuilder builder;
  const auto x = builder.tensor("x", {2, 8, 6, 6}), w = builder.tensor("w", {4, 8, 3, 3});
  const auto conv = builder.virtual_tensor("conv", {2, 4, 6, 6});
  const auto bias = builder.tensor("bias", {1, 4, 1, 1});
  const auto biased = builder.virtual_tensor("biased", {2, 4, 6, 6});
  const auto y = builder.tensor("y", {2, 4, 6, 6});
  builder.node("ConvolutionFwdAttributes", OpKind::conv_fwd, {{"x", x}, {"w", w}}, {{"y", conv}},
               ConvParams{true, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 1});
  builder.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", conv}, {"in_1", bias}},
               {{"out_0", biased}}, pointwise(PointwiseOp::add));
  builder.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", biased}}, {{"out_0", y}},
               pointwise(PointwiseOp::relu));
  const Graph graph = builder.build();
  GraphData data(graph, 7);
  EXPECT_EQ(data.reference_kind_for(DeviceKind::host), ReferenceKind::cpu_fp64);
  ASSERT_EQ(data.reference_kind_for(DeviceKind::cuda), ReferenceKind::gpu_fp32);
  const Dense cpu = data.reference(ReferenceKind::cpu_fp64).at(y);
  const Dense gpu = data.reference(ReferenceKind::gpu_fp32).at(y);
  expect_close(cpu, gpu, 8 * 9, "conv + bias + relu");
  GraphData cpu_only(graph, 7, /*allow_gpu_reference=*/false);
  EXPECT_EQ(cpu_only.reference_kind_for(DeviceKind::cuda), ReferenceKind::cpu_fp64);
}

}  // namespace
}  // namespace dnnbench::testing
