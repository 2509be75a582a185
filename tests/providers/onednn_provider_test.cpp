// The oneDNN provider on real buffers: every engine (and every plan of its plan space) of small
// graphs, checked against values computed here by direct loops.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>

#include "../support/graph_builder.hpp"
#include "providers/onednn/onednn_provider.hpp"
#include "providers/registry.hpp"
#include "tensor/host_tensor.hpp"

namespace dnnbench {
namespace {

using testing::channels_last_strides;
using testing::GraphBuilder;
using dims_t = std::vector<std::int64_t>;
using OutputValues = std::map<std::int64_t, Dense>;

PointwiseParams pw(PointwiseOp op) {
  PointwiseParams params;
  params.op = op;
  return params;
}

// Deterministic, non-trivial values: small integers and halves, exact in fp32.
Dense ramp(const dims_t& dims, int seed = 0) {
  Dense d(dims);
  for (std::size_t i = 0; i < d.data.size(); ++i)
    d.data[i] = static_cast<double>((static_cast<int>(i) * 7 + seed * 3) % 11 - 5) * 0.5;
  return d;
}

// Binds every non-virtual tensor, runs one plan, and returns the outputs' logical values.
OutputValues run_plan(Provider& provider, const Graph& graph, const PlanSpec& spec,
                      const OutputValues& inputs, std::vector<std::string>* notes = nullptr) {
  std::map<std::int64_t, std::unique_ptr<HostTensor>> storage;
  std::map<std::int64_t, double> scalars;
  Bindings bindings;
  for (const auto& t : graph.tensors) {
    if (t.is_virtual) continue;
    if (t.is_by_value()) {
      scalars[t.uid] = *t.scalar_value;
      bindings.buffers[t.uid] = &scalars[t.uid];
      continue;
    }
    auto tensor = std::make_unique<HostTensor>(t);
    if (auto it = inputs.find(t.uid); it != inputs.end())
      tensor->from_dense(it->second);
    else
      tensor->poison();
    bindings.buffers[t.uid] = tensor->data();
    storage[t.uid] = std::move(tensor);
  }
  auto plan = provider.build(graph, spec);
  EXPECT_EQ(plan->name(), spec.name());
  auto stream = provider.make_stream();
  plan->bind(bindings, *stream);
  plan->execute(*stream);
  stream->synchronize();
  plan->publish_outputs(*stream);
  if (notes) *notes = plan->notes();
  OutputValues outputs;
  for (auto uid : graph.output_uids()) outputs[uid] = storage.at(uid)->to_dense();
  return outputs;
}

void expect_near(const Dense& got, const Dense& want, const std::string& what, double tol = 1e-4) {
  ASSERT_EQ(got.dims, want.dims) << what;
  for (std::size_t i = 0; i < want.data.size(); ++i)
    ASSERT_NEAR(got.data[i], want.data[i], tol * (1 + std::abs(want.data[i]))) << what << " at element " << i;
}

// Runs every plan of every engine and checks output `uid` against `want`; returns the engines.
std::vector<EngineInfo> check_all_plans(Provider& provider, const Graph& graph, const OutputValues& inputs,
                                        const std::map<std::int64_t, Dense>& want, double tol = 1e-4) {
  const auto engines = provider.engines(graph);
  EXPECT_FALSE(engines.empty());
  for (const auto& engine : engines) {
    const auto plans = provider.plan_space(graph, engine, SweepLimits{});
    EXPECT_FALSE(plans.empty());
    for (const auto& spec : plans) {
      SCOPED_TRACE(spec.name());
      const auto out = run_plan(provider, graph, spec, inputs);
      for (const auto& [uid, values] : want) expect_near(out.at(uid), values, spec.name(), tol);
    }
  }
  return engines;
}

struct ConvShape {
  std::int64_t n, c, h, w, k, r, s, groups = 1, stride = 1, pad = 0, dilation = 1;
  std::int64_t oh() const { return (h + 2 * pad - (r - 1) * dilation - 1) / stride + 1; }
  std::int64_t ow() const { return (w + 2 * pad - (s - 1) * dilation - 1) / stride + 1; }
};

enum class ConvDir { fwd, bwd_data, bwd_weights };

// Direct-loop convolution over logical NCHW values: computes y, dx or dw from the other two.
Dense conv_loops(const ConvShape& p, ConvDir dir, const Dense& a, const Dense& b) {
  const std::int64_t cg = p.c / p.groups, kg = p.k / p.groups;
  const dims_t x_dims{p.n, p.c, p.h, p.w}, w_dims{p.k, cg, p.r, p.s}, y_dims{p.n, p.k, p.oh(), p.ow()};
  Dense out(dir == ConvDir::fwd ? y_dims : dir == ConvDir::bwd_data ? x_dims : w_dims);
  auto xi = [&](auto n, auto c, auto h, auto w) {
    return static_cast<std::size_t>(((n * p.c + c) * p.h + h) * p.w + w);
  };
  auto wi = [&](auto k, auto c, auto r, auto s) {
    return static_cast<std::size_t>(((k * cg + c) * p.r + r) * p.s + s);
  };
  auto yi = [&](auto n, auto k, auto h, auto w) {
    return static_cast<std::size_t>(((n * p.k + k) * p.oh() + h) * p.ow() + w);
  };
  for (std::int64_t n = 0; n < p.n; ++n)
    for (std::int64_t k = 0; k < p.k; ++k)
      for (std::int64_t oh = 0; oh < p.oh(); ++oh)
        for (std::int64_t ow = 0; ow < p.ow(); ++ow)
          for (std::int64_t c = 0; c < cg; ++c)
            for (std::int64_t r = 0; r < p.r; ++r)
              for (std::int64_t s = 0; s < p.s; ++s) {
                const std::int64_t ih = oh * p.stride - p.pad + r * p.dilation;
                const std::int64_t iw = ow * p.stride - p.pad + s * p.dilation;
                if (ih < 0 || ih >= p.h || iw < 0 || iw >= p.w) continue;
                const std::int64_t ic = (k / kg) * cg + c;
                if (dir == ConvDir::fwd)
                  out.data[yi(n, k, oh, ow)] += a.data[xi(n, ic, ih, iw)] * b.data[wi(k, c, r, s)];
                if (dir == ConvDir::bwd_data)
                  out.data[xi(n, ic, ih, iw)] += a.data[yi(n, k, oh, ow)] * b.data[wi(k, c, r, s)];
                if (dir == ConvDir::bwd_weights)
                  out.data[wi(k, c, r, s)] += a.data[xi(n, ic, ih, iw)] * b.data[yi(n, k, oh, ow)];
              }
  return out;
}

ConvParams conv_params(const ConvShape& p) {
  ConvParams params;
  params.pre_padding = params.post_padding = {p.pad, p.pad};
  params.stride = {p.stride, p.stride};
  params.dilation = {p.dilation, p.dilation};
  params.groups = p.groups;
  return params;
}

struct ConvGraph {
  Graph graph;
  std::int64_t x, w, y;
};

ConvGraph conv_graph(const ConvShape& p, ConvDir dir, bool nhwc) {
  GraphBuilder b("conv");
  const dims_t x_dims{p.n, p.c, p.h, p.w}, w_dims{p.k, p.c / p.groups, p.r, p.s},
      y_dims{p.n, p.k, p.oh(), p.ow()};
  auto strides = [nhwc](const dims_t& d) { return nhwc ? channels_last_strides(d) : dims_t{}; };
  ConvGraph g;
  g.x = b.tensor("x", x_dims, DataType::f32, strides(x_dims));
  g.w = b.tensor("w", w_dims, DataType::f32, strides(w_dims));
  g.y = b.tensor("y", y_dims, DataType::f32, strides(y_dims));
  if (dir == ConvDir::fwd)
    b.node("ConvolutionFwdAttributes", OpKind::conv_fwd, {{"x", g.x}, {"w", g.w}}, {{"y", g.y}},
           conv_params(p));
  if (dir == ConvDir::bwd_data)
    b.node("ConvolutionBwdAttributes", OpKind::conv_bwd_data, {{"dy", g.y}, {"w", g.w}}, {{"dx", g.x}},
           conv_params(p));
  if (dir == ConvDir::bwd_weights)
    b.node("ConvolutionWrwAttributes", OpKind::conv_bwd_weights, {{"x", g.x}, {"dy", g.y}}, {{"dw", g.w}},
           conv_params(p));
  g.graph = b.build();
  return g;
}

class OneDnnProviderTest : public ::testing::Test {
 protected:
  std::unique_ptr<Provider> provider = make_onednn_provider();
};

TEST_F(OneDnnProviderTest, IdentifiesItself) {
  EXPECT_EQ(provider->name(), "onednn");
  EXPECT_EQ(provider->device(), DeviceKind::host);
  EXPECT_EQ(provider->version().rfind("oneDNN 2.", 0), 0u) << provider->version();
  auto from_registry = make_provider("onednn");
  ASSERT_NE(from_registry, nullptr);
  EXPECT_EQ(from_registry->name(), "onednn");
  EXPECT_EQ(make_provider("no-such-provider"), nullptr);
}

// Graphs that differ only in user layouts lower to the same oneDNN operation; building the
// first one's primitives must not change the second one's engine list (oneDNN's primitive cache
// made the iterator yield every implementation twice: jit:avx2, jit:avx2#2, ...).
TEST_F(OneDnnProviderTest, EnginesDoNotDependOnWhatWasBuiltBefore) {
  const ConvShape p{1, 8, 6, 6, 8, 3, 3, 1, 1, 1};
  const auto nchw = conv_graph(p, ConvDir::fwd, false);
  const auto nhwc = conv_graph(p, ConvDir::fwd, true);
  auto ids = [](const std::vector<EngineInfo>& engines) {
    std::vector<std::string> out;
    for (const auto& e : engines) out.push_back(e.id);
    return out;
  };
  const auto before = ids(provider->engines(nhwc.graph));
  ASSERT_FALSE(before.empty());
  for (const auto& engine : provider->engines(nchw.graph))
    for (const auto& spec : provider->plan_space(nchw.graph, engine, {}))
      EXPECT_NE(provider->build(nchw.graph, spec), nullptr);
  EXPECT_EQ(ids(provider->engines(nhwc.graph)), before);
  EXPECT_EQ(ids(make_onednn_provider()->engines(nhwc.graph)), before);
}

TEST_F(OneDnnProviderTest, ConvForwardNchw) {
  const ConvShape p{2, 4, 5, 5, 8, 3, 3, 1, 1, 1};
  const auto g = conv_graph(p, ConvDir::fwd, false);
  const OutputValues in{{g.x, ramp({2, 4, 5, 5}, 1)}, {g.w, ramp({8, 4, 3, 3}, 2)}};
  const auto engines =
      check_all_plans(*provider, g.graph, in, {{g.y, conv_loops(p, ConvDir::fwd, in.at(g.x), in.at(g.w))}});
  EXPECT_FALSE(engines.front().notes.empty());
}

TEST_F(OneDnnProviderTest, ConvForwardNhwcStridedDilated) {
  const ConvShape p{2, 8, 7, 7, 16, 3, 3, 1, 2, 1, 2};
  const auto g = conv_graph(p, ConvDir::fwd, true);
  const OutputValues in{{g.x, ramp({2, 8, 7, 7}, 3)}, {g.w, ramp({16, 8, 3, 3}, 4)}};
  check_all_plans(*provider, g.graph, in, {{g.y, conv_loops(p, ConvDir::fwd, in.at(g.x), in.at(g.w))}});
}

TEST_F(OneDnnProviderTest, ConvForwardOneByOneByHand) {
  // y[k] = sum_c w[k, c] x[c] at each pixel: x = [1, 2] everywhere, w = [[1, 1], [2, -1], [0, 3]].
  const ConvShape p{1, 2, 2, 2, 3, 1, 1};
  const auto g = conv_graph(p, ConvDir::fwd, false);
  Dense x({1, 2, 2, 2});
  for (int i = 0; i < 8; ++i) x.data[static_cast<std::size_t>(i)] = i < 4 ? 1 : 2;
  Dense w({3, 2, 1, 1});
  w.data = {1, 1, 2, -1, 0, 3};
  Dense y({1, 3, 2, 2});
  y.data = {3, 3, 3, 3, 0, 0, 0, 0, 6, 6, 6, 6};
  check_all_plans(*provider, g.graph, {{g.x, x}, {g.w, w}}, {{g.y, y}});
}

TEST_F(OneDnnProviderTest, GroupedConvNchwAndNhwc) {
  for (bool nhwc : {false, true}) {
    SCOPED_TRACE(nhwc ? "nhwc" : "nchw");
    const ConvShape p{2, 4, 5, 5, 6, 3, 3, 2, 1, 1};
    const auto g = conv_graph(p, ConvDir::fwd, nhwc);
    const OutputValues in{{g.x, ramp({2, 4, 5, 5}, 5)}, {g.w, ramp({6, 2, 3, 3}, 6)}};
    check_all_plans(*provider, g.graph, in, {{g.y, conv_loops(p, ConvDir::fwd, in.at(g.x), in.at(g.w))}});
  }
}

TEST_F(OneDnnProviderTest, DepthwiseConv) {
  const ConvShape p{1, 8, 6, 6, 8, 3, 3, 8, 1, 1};
  const auto g = conv_graph(p, ConvDir::fwd, true);
  const OutputValues in{{g.x, ramp({1, 8, 6, 6}, 7)}, {g.w, ramp({8, 1, 3, 3}, 8)}};
  check_all_plans(*provider, g.graph, in, {{g.y, conv_loops(p, ConvDir::fwd, in.at(g.x), in.at(g.w))}});
}

TEST_F(OneDnnProviderTest, ConvBackwardData) {
  const ConvShape p{2, 4, 6, 6, 8, 3, 3, 1, 2, 1};
  const auto g = conv_graph(p, ConvDir::bwd_data, false);
  const OutputValues in{{g.y, ramp({2, 8, p.oh(), p.ow()}, 1)}, {g.w, ramp({8, 4, 3, 3}, 2)}};
  check_all_plans(*provider, g.graph, in, {{g.x, conv_loops(p, ConvDir::bwd_data, in.at(g.y), in.at(g.w))}});
}

TEST_F(OneDnnProviderTest, ConvBackwardWeights) {
  const ConvShape p{2, 4, 6, 6, 8, 3, 3, 1, 1, 1};
  const auto g = conv_graph(p, ConvDir::bwd_weights, true);
  const OutputValues in{{g.x, ramp({2, 4, 6, 6}, 1)}, {g.y, ramp({2, 8, 6, 6}, 2)}};
  check_all_plans(*provider, g.graph, in,
                  {{g.w, conv_loops(p, ConvDir::bwd_weights, in.at(g.x), in.at(g.y))}});
}

TEST_F(OneDnnProviderTest, ConvBiasReluChainIsFused) {
  const ConvShape p{2, 4, 5, 5, 8, 3, 3, 1, 1, 1};
  GraphBuilder b("conv_bias_relu");
  const auto x = b.tensor("x", {2, 4, 5, 5});
  const auto w = b.tensor("w", {8, 4, 3, 3});
  const auto conv_out = b.virtual_tensor("conv_out", {2, 8, 5, 5});
  const auto bias = b.tensor("bias", {1, 8, 1, 1});
  const auto biased = b.virtual_tensor("biased", {2, 8, 5, 5});
  const auto y = b.tensor("y", {2, 8, 5, 5});
  b.node("ConvolutionFwdAttributes", OpKind::conv_fwd, {{"x", x}, {"w", w}}, {{"y", conv_out}},
         conv_params(p));
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", conv_out}, {"in_1", bias}}, {{"out_0", biased}},
         pw(PointwiseOp::add));
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", biased}}, {{"out_0", y}}, pw(PointwiseOp::relu));
  const Graph graph = b.build();
  const OutputValues in{
      {x, ramp({2, 4, 5, 5}, 1)}, {w, ramp({8, 4, 3, 3}, 2)}, {bias, ramp({1, 8, 1, 1}, 3)}};
  Dense want = conv_loops(p, ConvDir::fwd, in.at(x), in.at(w));
  for (std::size_t i = 0; i < want.data.size(); ++i)
    want.data[i] = std::max(0.0, want.data[i] + in.at(bias).data[(i / 25) % 8]);
  check_all_plans(*provider, graph, in, {{y, want}});
}

TEST_F(OneDnnProviderTest, MatmulBatchedBroadcast) {
  GraphBuilder b("matmul");
  const auto a = b.tensor("a", {2, 3, 4});
  const auto w = b.tensor("b", {4, 5});  // rank 2: broadcast over the batch
  const auto c = b.tensor("c", {2, 3, 5});
  b.node("MatmulAttributes", OpKind::matmul, {{"a", a}, {"b", w}}, {{"c", c}}, MatmulParams{});
  const Graph graph = b.build();
  const OutputValues in{{a, ramp({2, 3, 4}, 1)}, {w, ramp({4, 5}, 2)}};
  Dense want({2, 3, 5});
  for (int bt = 0; bt < 2; ++bt)
    for (int m = 0; m < 3; ++m)
      for (int n = 0; n < 5; ++n)
        for (int k = 0; k < 4; ++k)
          want.data[static_cast<std::size_t>((bt * 3 + m) * 5 + n)] +=
              in.at(a).data[static_cast<std::size_t>((bt * 3 + m) * 4 + k)] *
              in.at(w).data[static_cast<std::size_t>(k * 5 + n)];
  check_all_plans(*provider, graph, in, {{c, want}});
}

TEST_F(OneDnnProviderTest, MatmulTransposedOperandAndBatchOneBroadcast) {
  GraphBuilder b("matmul_t");
  const auto a = b.tensor("a", {1, 3, 4});
  const auto w = b.tensor("b", {2, 4, 5}, DataType::f32, {20, 1, 4});  // each batch stored transposed
  const auto c = b.tensor("c", {2, 3, 5});
  b.node("MatmulAttributes", OpKind::matmul, {{"a", a}, {"b", w}}, {{"c", c}}, MatmulParams{});
  const Graph graph = b.build();
  const OutputValues in{{a, ramp({1, 3, 4}, 1)}, {w, ramp({2, 4, 5}, 2)}};
  Dense want({2, 3, 5});
  for (int bt = 0; bt < 2; ++bt)
    for (int m = 0; m < 3; ++m)
      for (int n = 0; n < 5; ++n)
        for (int k = 0; k < 4; ++k)
          want.data[static_cast<std::size_t>((bt * 3 + m) * 5 + n)] +=
              in.at(a).data[static_cast<std::size_t>(m * 4 + k)] *
              in.at(w).data[static_cast<std::size_t>((bt * 4 + k) * 5 + n)];
  check_all_plans(*provider, graph, in, {{c, want}});
}

TEST_F(OneDnnProviderTest, MatmulBiasGeluChain) {
  GraphBuilder b("matmul_bias_gelu");
  const auto a = b.tensor("a", {3, 4});
  const auto w = b.tensor("b", {4, 5});
  const auto mm = b.virtual_tensor("mm", {3, 5});
  const auto bias = b.tensor("bias", {1, 5});
  const auto biased = b.virtual_tensor("biased", {3, 5});
  const auto c = b.tensor("c", {3, 5});
  b.node("MatmulAttributes", OpKind::matmul, {{"a", a}, {"b", w}}, {{"c", mm}}, MatmulParams{});
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", bias}, {"in_1", mm}}, {{"out_0", biased}},
         pw(PointwiseOp::add));
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", biased}}, {{"out_0", c}}, pw(PointwiseOp::gelu));
  const Graph graph = b.build();
  const OutputValues in{{a, ramp({3, 4}, 1)}, {w, ramp({4, 5}, 2)}, {bias, ramp({1, 5}, 3)}};
  Dense want({3, 5});
  for (int m = 0; m < 3; ++m)
    for (int n = 0; n < 5; ++n) {
      double v = in.at(bias).data[static_cast<std::size_t>(n)];
      for (int k = 0; k < 4; ++k)
        v += in.at(a).data[static_cast<std::size_t>(m * 4 + k)] *
             in.at(w).data[static_cast<std::size_t>(k * 5 + n)];
      want.data[static_cast<std::size_t>(m * 5 + n)] = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
    }
  check_all_plans(*provider, graph, in, {{c, want}}, 1e-3);
}

TEST_F(OneDnnProviderTest, ChainWithReversedSubAndSoftplusBeta) {
  // c = softplus_2(bias - a @ b): the chain value is sub's second operand, softplus has beta 2.
  GraphBuilder b("matmul_rsub_softplus");
  const auto a = b.tensor("a", {2, 3});
  const auto w = b.tensor("b", {3, 4});
  const auto mm = b.virtual_tensor("mm", {2, 4});
  const auto bias = b.tensor("bias", {1, 4});
  const auto diff = b.virtual_tensor("diff", {2, 4});
  const auto c = b.tensor("c", {2, 4});
  b.node("MatmulAttributes", OpKind::matmul, {{"a", a}, {"b", w}}, {{"c", mm}}, MatmulParams{});
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", bias}, {"in_1", mm}}, {{"out_0", diff}},
         pw(PointwiseOp::sub));
  PointwiseParams softplus = pw(PointwiseOp::softplus);
  softplus.softplus_beta = 2.0;
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", diff}}, {{"out_0", c}}, softplus);
  const Graph graph = b.build();
  const OutputValues in{{a, ramp({2, 3}, 1)}, {w, ramp({3, 4}, 2)}, {bias, ramp({1, 4}, 3)}};
  Dense want({2, 4});
  for (std::size_t m = 0; m < 2; ++m)
    for (std::size_t n = 0; n < 4; ++n) {
      double v = 0;
      for (std::size_t k = 0; k < 3; ++k) v += in.at(a).data[m * 3 + k] * in.at(w).data[k * 4 + n];
      const double x = in.at(bias).data[n] - v;
      want.data[m * 4 + n] = std::log1p(std::exp(2 * x)) / 2;
    }
  check_all_plans(*provider, graph, in, {{c, want}}, 1e-3);
}

TEST_F(OneDnnProviderTest, ConvolutionModeIsUnsupported) {
  auto g = conv_graph({1, 4, 5, 5, 4, 3, 3, 1, 1, 1}, ConvDir::fwd, false);
  std::get<ConvParams>(g.graph.nodes.front().params).cross_correlation = false;
  EXPECT_THROW(provider->engines(g.graph), Unsupported);
}

struct BnGraph {
  Graph graph;
  std::int64_t x, mean, var, scale, bias, y;
};

BnGraph batchnorm_graph(bool variance_ext, double epsilon) {
  GraphBuilder b("bn");
  BnGraph g;
  g.x = b.tensor("x", {2, 3, 2, 2}, DataType::f32, channels_last_strides({2, 3, 2, 2}));
  g.mean = b.tensor("mean", {1, 3, 1, 1});
  g.var = b.tensor(variance_ext ? "variance" : "inv_variance", {1, 3, 1, 1});
  g.scale = b.tensor("scale", {1, 3, 1, 1});
  g.bias = b.tensor("bias", {1, 3, 1, 1});
  g.y = b.tensor("y", {2, 3, 2, 2}, DataType::f32, channels_last_strides({2, 3, 2, 2}));
  std::vector<Port> inputs{{"x", g.x},
                           {"mean", g.mean},
                           {variance_ext ? "variance" : "inv_variance", g.var},
                           {"scale", g.scale},
                           {"bias", g.bias}};
  if (variance_ext) inputs.push_back({"epsilon", b.scalar("epsilon", epsilon)});
  b.node(variance_ext ? "BatchnormInferenceAttributesVarianceExt" : "BatchnormInferenceAttributes",
         OpKind::batchnorm_inference, inputs, {{"y", g.y}}, BatchnormParams{variance_ext});
  g.graph = b.build();
  return g;
}

TEST_F(OneDnnProviderTest, BatchnormInferenceInvVariance) {
  const auto g = batchnorm_graph(false, 0);
  Dense mean({1, 3, 1, 1}), inv({1, 3, 1, 1}), scale({1, 3, 1, 1}), bias({1, 3, 1, 1});
  mean.data = {0.5, -1, 2};
  inv.data = {2, 0.5, 4};
  scale.data = {1, 2, -1};
  bias.data = {0, 1, 0.25};
  const Dense x = ramp({2, 3, 2, 2}, 1);
  Dense want(x.dims);
  for (std::size_t i = 0; i < x.data.size(); ++i) {
    const std::size_t c = (i / 4) % 3;
    want.data[i] = (x.data[i] - mean.data[c]) * inv.data[c] * scale.data[c] + bias.data[c];
  }
  check_all_plans(*provider, g.graph,
                  {{g.x, x}, {g.mean, mean}, {g.var, inv}, {g.scale, scale}, {g.bias, bias}}, {{g.y, want}});
}

TEST_F(OneDnnProviderTest, BatchnormInferenceVarianceExt) {
  const double eps = 0.25;
  const auto g = batchnorm_graph(true, eps);
  Dense mean({1, 3, 1, 1}), var({1, 3, 1, 1}), scale({1, 3, 1, 1}), bias({1, 3, 1, 1});
  mean.data = {0.5, -1, 2};
  var.data = {0.75, 3.75, 15.75};  // + eps: 1, 4, 16
  scale.data = {1, 2, -1};
  bias.data = {0, 1, 0.25};
  const Dense x = ramp({2, 3, 2, 2}, 1);
  Dense want(x.dims);
  for (std::size_t i = 0; i < x.data.size(); ++i) {
    const std::size_t c = (i / 4) % 3;
    want.data[i] = (x.data[i] - mean.data[c]) / std::sqrt(var.data[c] + eps) * scale.data[c] + bias.data[c];
  }
  check_all_plans(*provider, g.graph,
                  {{g.x, x}, {g.mean, mean}, {g.var, var}, {g.scale, scale}, {g.bias, bias}}, {{g.y, want}});
}

TEST_F(OneDnnProviderTest, LayernormTrainingPublishesMeanAndInvVariance) {
  const double eps = 1e-5;
  GraphBuilder b("layernorm");
  const auto x = b.tensor("x", {2, 3, 4});
  const auto scale = b.tensor("scale", {1, 1, 4});
  const auto bias = b.tensor("bias", {1, 1, 4});
  const auto epsilon = b.scalar("epsilon", eps);
  const auto y = b.tensor("y", {2, 3, 4});
  const auto mean = b.tensor("mean", {2, 3, 1});
  const auto inv = b.tensor("inv_variance", {2, 3, 1});
  b.node("LayernormAttributes", OpKind::layernorm,
         {{"x", x}, {"scale", scale}, {"bias", bias}, {"epsilon", epsilon}},
         {{"y", y}, {"mean", mean}, {"inv_variance", inv}}, LayernormParams{NormPhase::training, 1});
  const Graph graph = b.build();
  const Dense xv = ramp({2, 3, 4}, 1);
  Dense sv({1, 1, 4}), bv({1, 1, 4});
  sv.data = {1, 2, 0.5, -1};
  bv.data = {0, 0.5, 1, -0.25};
  Dense want_y({2, 3, 4}), want_mean({2, 3, 1}), want_inv({2, 3, 1});
  for (std::size_t row = 0; row < 6; ++row) {
    double m = 0, v = 0;
    for (std::size_t i = 0; i < 4; ++i) m += xv.data[row * 4 + i] / 4;
    for (std::size_t i = 0; i < 4; ++i) v += (xv.data[row * 4 + i] - m) * (xv.data[row * 4 + i] - m) / 4;
    const double iv = 1 / std::sqrt(v + eps);
    want_mean.data[row] = m;
    want_inv.data[row] = iv;
    for (std::size_t i = 0; i < 4; ++i)
      want_y.data[row * 4 + i] = (xv.data[row * 4 + i] - m) * iv * sv.data[i] + bv.data[i];
  }
  check_all_plans(*provider, graph, {{x, xv}, {scale, sv}, {bias, bv}},
                  {{y, want_y}, {mean, want_mean}, {inv, want_inv}});
}

TEST_F(OneDnnProviderTest, LayernormInferenceOverTwoDims) {
  GraphBuilder b("layernorm2");
  const auto x = b.tensor("x", {2, 2, 3});
  const auto epsilon = b.scalar("epsilon", 1e-5);
  const auto y = b.tensor("y", {2, 2, 3});
  b.node("LayernormAttributes", OpKind::layernorm, {{"x", x}, {"epsilon", epsilon}}, {{"y", y}},
         LayernormParams{NormPhase::inference, 2});
  const Graph graph = b.build();
  const Dense xv = ramp({2, 2, 3}, 2);
  Dense want({2, 2, 3});
  for (std::size_t row = 0; row < 2; ++row) {
    double m = 0, v = 0;
    for (std::size_t i = 0; i < 6; ++i) m += xv.data[row * 6 + i] / 6;
    for (std::size_t i = 0; i < 6; ++i) v += (xv.data[row * 6 + i] - m) * (xv.data[row * 6 + i] - m) / 6;
    for (std::size_t i = 0; i < 6; ++i)
      want.data[row * 6 + i] = (xv.data[row * 6 + i] - m) / std::sqrt(v + 1e-5);
  }
  check_all_plans(*provider, graph, {{x, xv}}, {{y, want}});
}

TEST_F(OneDnnProviderTest, ReductionSumAndMax) {
  for (auto mode : {ReductionMode::add, ReductionMode::max}) {
    GraphBuilder b("reduction");
    const auto x = b.tensor("x", {2, 3, 4});
    const auto y = b.tensor("y", {2, 1, 4});
    b.node("ReductionAttributes", OpKind::reduction, {{"x", x}}, {{"y", y}}, ReductionParams{mode});
    const Graph graph = b.build();
    const Dense xv = ramp({2, 3, 4}, 1);
    Dense want({2, 1, 4}, mode == ReductionMode::add ? 0.0 : -1e30);
    for (std::size_t n = 0; n < 2; ++n)
      for (std::size_t c = 0; c < 3; ++c)
        for (std::size_t i = 0; i < 4; ++i) {
          auto& w = want.data[n * 4 + i];
          const double v = xv.data[(n * 3 + c) * 4 + i];
          w = mode == ReductionMode::add ? w + v : std::max(w, v);
        }
    check_all_plans(*provider, graph, {{x, xv}}, {{y, want}});
  }
}

TEST_F(OneDnnProviderTest, MaxPoolAndAvgPoolExcludePadding) {
  for (auto mode : {ResampleMode::maxpool, ResampleMode::avgpool_exclude_padding}) {
    GraphBuilder b("pool");
    const auto x = b.tensor("x", {1, 2, 4, 4});
    const auto y = b.tensor("y", {1, 2, 2, 2});
    ResampleParams params;
    params.mode = mode;
    params.window = {3, 3};
    params.stride = {2, 2};
    params.pre_padding = {1, 1};
    params.post_padding = {0, 0};
    b.node("ResampleFwdAttributes", OpKind::resample, {{"x", x}}, {{"y", y}}, params);
    const Graph graph = b.build();
    const Dense xv = ramp({1, 2, 4, 4}, 1);
    Dense want({1, 2, 2, 2});
    for (std::int64_t c = 0; c < 2; ++c)
      for (std::int64_t oh = 0; oh < 2; ++oh)
        for (std::int64_t ow = 0; ow < 2; ++ow) {
          double best = -1e30, sum = 0;
          int count = 0;
          for (std::int64_t r = 0; r < 3; ++r)
            for (std::int64_t s = 0; s < 3; ++s) {
              const std::int64_t ih = oh * 2 - 1 + r, iw = ow * 2 - 1 + s;
              if (ih < 0 || iw < 0 || ih >= 4 || iw >= 4) continue;
              const double v = xv.data[static_cast<std::size_t>((c * 4 + ih) * 4 + iw)];
              best = std::max(best, v);
              sum += v;
              ++count;
            }
          want.data[static_cast<std::size_t>((c * 2 + oh) * 2 + ow)] =
              mode == ResampleMode::maxpool ? best : sum / count;
        }
    check_all_plans(*provider, graph, {{x, xv}}, {{y, want}});
  }
}

TEST_F(OneDnnProviderTest, LonePointwiseOps) {
  {
    GraphBuilder b("relu");
    const auto x = b.tensor("x", {2, 3});
    const auto y = b.tensor("y", {2, 3});
    PointwiseParams relu = pw(PointwiseOp::relu);
    relu.relu_upper_clip = 1.0;
    b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", x}}, {{"out_0", y}}, relu);
    Dense xv({2, 3});
    xv.data = {-2, -0.5, 0, 0.5, 1, 3};
    Dense want({2, 3});
    want.data = {0, 0, 0, 0.5, 1, 1};
    check_all_plans(*provider, b.build(), {{x, xv}}, {{y, want}});
  }
  {
    GraphBuilder b("add_broadcast");
    const auto x = b.tensor("x", {2, 3});
    const auto row = b.tensor("row", {1, 3});
    const auto y = b.tensor("y", {2, 3});
    // in_0 broadcasts: the provider swaps the operands of the commutative add.
    b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", row}, {"in_1", x}}, {{"out_0", y}},
           pw(PointwiseOp::add));
    Dense xv({2, 3}), rv({1, 3}), want({2, 3});
    xv.data = {1, 2, 3, 4, 5, 6};
    rv.data = {10, 20, 30};
    want.data = {11, 22, 33, 14, 25, 36};
    check_all_plans(*provider, b.build(), {{x, xv}, {row, rv}}, {{y, want}});
  }
}

TEST_F(OneDnnProviderTest, NhwcConvOffersPlainLayoutAndRecordsReorders) {
  const ConvShape p{2, 16, 8, 8, 16, 3, 3, 1, 1, 1};
  const auto g = conv_graph(p, ConvDir::fwd, true);
  const auto engines = provider->engines(g.graph);
  ASSERT_FALSE(engines.empty());
  const auto heuristic = provider->heuristic_plan(g.graph, engines.front());
  EXPECT_EQ(heuristic.name(), engines.front().id + "_layout=any");
  bool any_plain = false;
  for (const auto& engine : engines) {
    const auto plans = provider->plan_space(g.graph, engine, SweepLimits{});
    ASSERT_FALSE(plans.empty());
    EXPECT_EQ(plans.front().name(), provider->heuristic_plan(g.graph, engine).name());
    for (const auto& plan : plans)
      any_plain =
          any_plain || plan.name().ends_with("_layout=plain") || plan.name().ends_with("_layout=plain_data");
  }
  EXPECT_TRUE(any_plain) << "an NHWC conv should have some engine that runs on the user's strides";
  // Running on the implementation's own layouts records the reorders bind and publish do.
  std::vector<std::string> notes;
  const OutputValues in{{g.x, ramp({2, 16, 8, 8}, 1)}, {g.w, ramp({16, 16, 3, 3}, 2)}};
  run_plan(*provider, g.graph, heuristic, in, &notes);
  if (engines.front().notes.front().find("acdb") == std::string::npos) {
    ASSERT_FALSE(notes.empty());
    EXPECT_EQ(notes.front().rfind("reorder src: acdb -> ", 0), 0u) << notes.front();
  }
}

TEST_F(OneDnnProviderTest, UnknownEngineOrLayoutIsUnsupported) {
  const auto g = conv_graph({1, 4, 5, 5, 4, 3, 3, 1, 1, 1}, ConvDir::fwd, false);
  EXPECT_THROW(provider->build(g.graph, PlanSpec{"no_such_impl", {{"layout", "any"}}}), Unsupported);
  const auto engines = provider->engines(g.graph);
  EXPECT_THROW(provider->build(g.graph, PlanSpec{engines.front().id, {{"tile", "3"}}}), Unsupported);
}

TEST_F(OneDnnProviderTest, RmsnormIsUnsupported) {
  GraphBuilder b("rmsnorm");
  const auto x = b.tensor("x", {2, 4});
  const auto scale = b.tensor("scale", {1, 4});
  const auto epsilon = b.scalar("epsilon", 1e-5);
  const auto y = b.tensor("y", {2, 4});
  b.node("RMSNormAttributes", OpKind::rmsnorm, {{"x", x}, {"scale", scale}, {"epsilon", epsilon}}, {{"y", y}},
         RmsnormParams{});
  try {
    provider->engines(b.build());
    FAIL() << "expected Unsupported";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("RMS"), std::string::npos) << e.what();
  }
}

TEST_F(OneDnnProviderTest, NonChainGraphIsUnsupported) {
  // Two pointwise nodes that both read the anchor's output: not anchor + chain.
  GraphBuilder b("branch");
  const auto x = b.tensor("x", {2, 3});
  const auto t = b.virtual_tensor("t", {2, 3});
  const auto y0 = b.tensor("y0", {2, 3});
  const auto y1 = b.tensor("y1", {2, 3});
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", x}}, {{"out_0", t}}, pw(PointwiseOp::exp));
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", t}}, {{"out_0", y0}}, pw(PointwiseOp::relu));
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", t}}, {{"out_0", y1}}, pw(PointwiseOp::tanh));
  EXPECT_THROW(provider->engines(b.build()), Unsupported);
}

TEST_F(OneDnnProviderTest, DoubleIsUnsupported) {
  GraphBuilder b("fp64", DataType::f64);
  const auto x = b.tensor("x", {2, 3}, DataType::f64);
  const auto y = b.tensor("y", {2, 3}, DataType::f64);
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", x}}, {{"out_0", y}}, pw(PointwiseOp::relu));
  EXPECT_THROW(provider->engines(b.build()), Unsupported);
}

}  // namespace
}  // namespace dnnbench
