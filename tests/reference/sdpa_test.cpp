// Attention reference: a hand-computed case, masks (causal, bottom-right window, padding),
// grouped-query heads, and the backward against central differences of the forward.
#include <gtest/gtest.h>

#include <cmath>

#include "graph/cost.hpp"
#include "graph/ops/sdpa_mask.hpp"
#include "reference_test_support.hpp"

namespace dnnbench::testing {
namespace {

struct Attn {
  std::int64_t b = 1, h_q = 1, h_kv = 1, s_q = 1, s_kv = 2, d = 2;
  SdpaParams p;
  bool padding = false;
};

// A forward (or backward) graph of `a`; q k v (o do stats) are uids 1.. in that order.
Graph attention_graph(const Attn& a, bool backward) {
  GraphBuilder g;
  const auto q = g.tensor("q", {a.b, a.h_q, a.s_q, a.d});
  const auto k = g.tensor("k", {a.b, a.h_kv, a.s_kv, a.d});
  const auto v = g.tensor("v", {a.b, a.h_kv, a.s_kv, a.d});
  std::vector<Port> in{{"q", q}, {"k", k}, {"v", v}};
  if (backward) {
    in.push_back({"o", g.tensor("o", {a.b, a.h_q, a.s_q, a.d})});
    in.push_back({"do", g.tensor("do", {a.b, a.h_q, a.s_q, a.d})});
    in.push_back({"stats", g.tensor("stats", {a.b, a.h_q, a.s_q, 1})});
  }
  if (a.padding) {
    in.push_back({"seq_len_q", g.tensor("seq_len_q", {a.b, 1, 1, 1}, DataType::i32)});
    in.push_back({"seq_len_kv", g.tensor("seq_len_kv", {a.b, 1, 1, 1}, DataType::i32)});
  }
  SdpaParams p = a.p;
  p.padding_mask = a.padding;
  if (backward) {
    const auto dq = g.tensor("dq", {a.b, a.h_q, a.s_q, a.d});
    const auto dk = g.tensor("dk", {a.b, a.h_kv, a.s_kv, a.d});
    const auto dv = g.tensor("dv", {a.b, a.h_kv, a.s_kv, a.d});
    g.node("SdpaBackwardAttributes", OpKind::sdpa_bwd, in, {{"dq", dq}, {"dk", dk}, {"dv", dv}}, p);
  } else {
    const auto o = g.tensor("o", {a.b, a.h_q, a.s_q, a.d});
    const auto stats = g.tensor("stats", {a.b, a.h_q, a.s_q, 1});
    g.node("SdpaAttributes", OpKind::sdpa_fwd, in, {{"o", o}, {"stats", stats}}, p);
  }
  return g.build();
}

TEST(SdpaReference, HandComputedRowsWithAndWithoutCausalMask) {
  Attn a;
  a.s_q = 2;
  a.p.scale_value = 1.0;
  a.p.right_bound = 0;  // causal, top-left
  const Graph g = attention_graph(a, false);
  // Row 0 sees key 0 only; row 1 sees both, scores (0, 1).
  Values v{{1, dense({1, 1, 2, 2}, {1, 0, 0, 1})},
           {2, dense({1, 1, 2, 2}, {1, 0, 0, 1})},
           {3, dense({1, 1, 2, 2}, {1, 2, 3, 4})}};
  run_reference(g, v);
  const double p1 = std::exp(1.0) / (1 + std::exp(1.0));  // 0.7310586
  const auto& o = v.at(4).data;
  EXPECT_DOUBLE_EQ(o[0], 1);
  EXPECT_DOUBLE_EQ(o[1], 2);
  EXPECT_NEAR(o[2], (1 - p1) * 1 + p1 * 3, 1e-15);  // 2.4621172
  EXPECT_NEAR(o[3], (1 - p1) * 2 + p1 * 4, 1e-15);
  // stats: logsumexp of the kept scores (cuDNN's max + log(sum(exp(s - max)))).
  EXPECT_DOUBLE_EQ(v.at(5).data[0], 1.0);
  EXPECT_NEAR(v.at(5).data[1], std::log(1 + std::exp(1.0)), 1e-15);  // 1.3132617

  a.p.right_bound.reset();
  Values w{{1, v.at(1)}, {2, v.at(2)}, {3, v.at(3)}};
  run_reference(attention_graph(a, false), w);
  EXPECT_NEAR(w.at(4).data[0], p1 * 1 + (1 - p1) * 3, 1e-15);  // row 0 scores (1, 0)
}

TEST(SdpaReference, GroupedHeadsShareTheirKvHead) {
  Attn a;
  a.h_q = 4, a.h_kv = 2, a.s_q = 3, a.s_kv = 5, a.d = 4;
  a.p.scale_value = 0.5;
  const Graph g = attention_graph(a, false);
  Values v{{1, seeded({1, 4, 3, 4}, 1)}, {2, seeded({1, 2, 5, 4}, 2)}, {3, seeded({1, 2, 5, 4}, 3)}};
  run_reference(g, v);
  // Query heads 0 and 1 use K/V head 0: the same as an MHA graph with K/V head 0 repeated.
  Attn mha = a;
  mha.h_kv = 4;
  Dense k4({1, 4, 5, 4}), v4({1, 4, 5, 4});
  for (std::int64_t h = 0; h < 4; ++h)
    for (std::int64_t x = 0; x < 20; ++x) {
      k4.data[static_cast<std::size_t>(h * 20 + x)] = v.at(2).data[static_cast<std::size_t>(h / 2 * 20 + x)];
      v4.data[static_cast<std::size_t>(h * 20 + x)] = v.at(3).data[static_cast<std::size_t>(h / 2 * 20 + x)];
    }
  Values w{{1, v.at(1)}, {2, k4}, {3, v4}};
  run_reference(attention_graph(mha, false), w);
  for (std::size_t i = 0; i < w.at(4).data.size(); ++i)
    EXPECT_NEAR(v.at(4).data[i], w.at(4).data[i], 1e-14) << i;
}

TEST(SdpaReference, PaddedRowsAreZeroWithMinusInfinityStats) {
  Attn a;
  a.b = 2, a.s_q = 3, a.s_kv = 4;
  a.padding = true;
  const Graph g = attention_graph(a, false);
  Values v{{1, seeded({2, 1, 3, 2}, 4)},
           {2, seeded({2, 1, 4, 2}, 5)},
           {3, seeded({2, 1, 4, 2}, 6)},
           {4, dense({2, 1, 1, 1}, {2, 3})},
           {5, dense({2, 1, 1, 1}, {1, 4})}};
  run_reference(g, v);
  // Batch 0: rows 0 and 1 see key 0 only, so o = v[0]; row 2 is padding.
  const auto& o = v.at(6).data;
  const auto& vv = v.at(3).data;
  EXPECT_DOUBLE_EQ(o[0], vv[0]);
  EXPECT_DOUBLE_EQ(o[3], vv[1]);
  EXPECT_EQ(o[4], 0);
  EXPECT_EQ(o[5], 0);
  EXPECT_EQ(v.at(7).data[2], -INFINITY);
  EXPECT_TRUE(std::isfinite(v.at(7).data[3]));
}

TEST(SdpaMask, KeyRangesOfCausalBottomRightAndWindow) {
  SdpaParams p;
  p.right_bound = 0;
  EXPECT_EQ(sdpa_key_range(p, 0, 4, 6).end, 1);  // top-left causal: key 0 only
  p.alignment = DiagonalAlignment::bottom_right;
  EXPECT_EQ(sdpa_key_range(p, 0, 4, 6).end, 3);  // shifted by s_kv - s_q = 2
  p.left_bound = 2;
  EXPECT_EQ(sdpa_key_range(p, 3, 4, 6).begin, 4);  // window of 2 ending at key 5
  EXPECT_EQ(sdpa_key_range(p, 3, 4, 6).size(), 2);
  EXPECT_EQ(sdpa_key_range(p, 4, 4, 6).size(), 0);  // a padded row
}

TEST(SdpaCost, CausalCountsOnlyTheLowerTriangleAndGqaCountsQueryHeads) {
  Attn a;
  a.b = 2, a.h_q = 8, a.h_kv = 2, a.s_q = 64, a.s_kv = 64, a.d = 16;
  const double full = 2.0 * 2 * 8 * 64 * 64 * (16 + 16);
  EXPECT_DOUBLE_EQ(graph_cost(attention_graph(a, false)).flops, full);
  a.p.right_bound = 0;
  EXPECT_DOUBLE_EQ(graph_cost(attention_graph(a, false)).flops, full * (64.0 * 65 / 2) / (64 * 64));
  // Backward: five matmuls against the forward's two.
  EXPECT_DOUBLE_EQ(graph_cost(attention_graph(a, true)).flops, 2.5 * full * (64.0 * 65 / 2) / (64 * 64));
  a.p.left_bound = 8;  // sliding window of 8 keys: 8 per row after the first 7 rows
  EXPECT_DOUBLE_EQ(graph_cost(attention_graph(a, false)).flops, full * (7.0 * 8 / 2 + 57 * 8) / (64 * 64));
}

// The backward against central differences of L = sum(o * do) through the forward.
void expect_gradients_match(Attn a) {
  SCOPED_TRACE(::testing::Message() << "h_q " << a.h_q << " h_kv " << a.h_kv << " s " << a.s_q << "x"
                                    << a.s_kv);
  const Graph fwd = attention_graph(a, false);
  const Dense q = seeded({a.b, a.h_q, a.s_q, a.d}, 11), k = seeded({a.b, a.h_kv, a.s_kv, a.d}, 12),
              v = seeded({a.b, a.h_kv, a.s_kv, a.d}, 13), dout = seeded({a.b, a.h_q, a.s_q, a.d}, 14);
  const Dense lq = dense({a.b, 1, 1, 1},
                         std::vector<double>(static_cast<std::size_t>(a.b), static_cast<double>(a.s_q - 1)));
  const Dense lkv = dense(
      {a.b, 1, 1, 1}, std::vector<double>(static_cast<std::size_t>(a.b), static_cast<double>(a.s_kv - 1)));
  const auto run_fwd = [&](const Dense& qq, const Dense& kk, const Dense& vv) {
    Values x{{1, qq}, {2, kk}, {3, vv}};
    if (a.padding) x[4] = lq, x[5] = lkv;
    run_reference(fwd, x);
    const std::int64_t o_uid = a.padding ? 6 : 4;
    return std::make_pair(x.at(o_uid), x.at(o_uid + 1));
  };
  const auto [o, stats] = run_fwd(q, k, v);
  const Graph bwd = attention_graph(a, true);
  Values x{{1, q}, {2, k}, {3, v}, {4, o}, {5, dout}, {6, stats}};
  if (a.padding) x[7] = lq, x[8] = lkv;
  run_reference(bwd, x);
  const std::int64_t dq_uid = a.padding ? 9 : 7;
  const double eps = 1e-6;
  for (int which = 0; which < 3; ++which) {
    const Dense& grad = x.at(dq_uid + which);
    for (std::size_t i = 0; i < grad.data.size(); ++i) {
      Dense in[3] = {q, k, v};
      in[which].data[i] += eps;
      const double up = inner(run_fwd(in[0], in[1], in[2]).first, dout);
      in[which].data[i] -= 2 * eps;
      const double down = inner(run_fwd(in[0], in[1], in[2]).first, dout);
      EXPECT_NEAR(grad.data[i], (up - down) / (2 * eps), 1e-7) << "input " << which << " element " << i;
    }
  }
}

TEST(SdpaReference, BackwardMatchesFiniteDifferences) {
  Attn a;
  a.h_q = 2, a.s_q = 3, a.s_kv = 4, a.d = 3;
  a.p.scale_value = 0.7;
  expect_gradients_match(a);
  a.h_q = 4, a.h_kv = 2, a.p.right_bound = 0;  // causal GQA
  expect_gradients_match(a);
  a.p.alignment = DiagonalAlignment::bottom_right, a.p.left_bound = 2;  // bottom-right window
  expect_gradients_match(a);
  a.b = 2, a.padding = true;
  expect_gradients_match(a);
}

}  // namespace
}  // namespace dnnbench::testing
