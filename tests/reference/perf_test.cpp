// Throughput of the reference on perf-sized problems. Disabled by default (minutes in a
// sanitizer build); run in a Release build with --gtest_also_run_disabled_tests. It prints
// GFLOP/s and asserts nothing about time.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>

#include "reference_test_support.hpp"
#include "tensor/parallel.hpp"

namespace dnnbench::testing {
namespace {

void report(const std::string& what, double flops, const std::function<void()>& body) {
  const auto start = std::chrono::steady_clock::now();
  body();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("[reference perf] %-60s %7.2f GFLOP in %7.3f s = %6.2f GFLOP/s (%d threads)\n", what.c_str(),
              flops * 1e-9, seconds, flops * 1e-9 / seconds, reference_threads());
}

TEST(ReferencePerf, DISABLED_Throughput) {
  // ResNet-style 3x3 layer: N=32, C=K=64, 56x56, pad 1: 2 * N*K*H*W*C*9 = 7.4 GFLOP per pass.
  const std::int64_t n = 32, c = 64, k = 64, h = 56, w = 56;
  const double conv_flops = 2.0 * n * k * h * w * c * 9;
  const ConvParams p{true, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 1};
  GraphBuilder b;
  const auto x = b.tensor("x", {n, c, h, w}), wt = b.tensor("w", {k, c, 3, 3}),
             y = b.tensor("y", {n, k, h, w});
  const auto dy = b.tensor("dy", {n, k, h, w}), dx = b.tensor("dx", {n, c, h, w}),
             dw = b.tensor("dw", {k, c, 3, 3});
  b.node("ConvolutionFwdAttributes", OpKind::conv_fwd, {{"x", x}, {"w", wt}}, {{"y", y}}, p);
  b.node("ConvolutionBwdAttributes", OpKind::conv_bwd_data, {{"dy", dy}, {"w", wt}}, {{"dx", dx}}, p);
  b.node("ConvolutionWrwAttributes", OpKind::conv_bwd_weights, {{"x", x}, {"dy", dy}}, {{"dw", dw}}, p);
  const Graph g = b.build();
  Values v{{x, seeded({n, c, h, w}, 1)}, {wt, seeded({k, c, 3, 3}, 2)}, {dy, seeded({n, k, h, w}, 3)}};
  const std::string shape = "N32 C64 56x56 K64 3x3 pad1";
  report("conv fwd " + shape, conv_flops, [&] { reference_conv(g, g.nodes[0], v); });
  report("conv bwd data " + shape, conv_flops, [&] { reference_conv(g, g.nodes[1], v); });
  report("conv bwd weights " + shape, conv_flops, [&] { reference_conv(g, g.nodes[2], v); });

  // Square matmul and a batched transformer-style one.
  for (const auto& [batch, m, kk, nn] :
       {std::array<std::int64_t, 4>{1, 1024, 1024, 1024}, {16, 512, 64, 512}}) {
    GraphBuilder mb;
    const auto a = mb.tensor("a", {batch, m, kk}), bm = mb.tensor("b", {batch, kk, nn}),
               cm = mb.tensor("c", {batch, m, nn});
    mb.node("MatmulAttributes", OpKind::matmul, {{"a", a}, {"b", bm}}, {{"c", cm}}, MatmulParams{});
    Values mv{{a, seeded({batch, m, kk}, 4)}, {bm, seeded({batch, kk, nn}, 5)}};
    report("matmul " + std::to_string(batch) + "x" + std::to_string(m) + "x" + std::to_string(kk) + "x" +
               std::to_string(nn),
           2.0 * batch * m * kk * nn, [&] { run_reference(mb.graph(), mv); });
  }
}

}  // namespace
}  // namespace dnnbench::testing
