// The cuBLASLt provider's pure logic, without a GPU: how a graph becomes a column-major GEMM
// with an epilogue (or why it cannot), plan names, the engine order and the plan space drawn
// from an algo's capabilities.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <set>

#include "../support/graph_builder.hpp"
#include "providers/cublaslt/configs.hpp"
#include "providers/cublaslt/problem.hpp"

namespace dnnbench::cublaslt {
namespace {

using dnnbench::testing::GraphBuilder;

struct Mm {
  GraphBuilder g{"mm", DataType::bf16};
  std::int64_t a = 0, b = 0, c = 0;
};

Mm matmul(std::vector<std::int64_t> a_dims, std::vector<std::int64_t> b_dims,
          std::vector<std::int64_t> c_dims, bool c_virtual = false,
          std::vector<std::int64_t> b_strides = {}) {
  Mm m;
  m.a = m.g.tensor("a", std::move(a_dims), DataType::bf16);
  m.b = m.g.tensor("b", std::move(b_dims), DataType::bf16, std::move(b_strides));
  m.c = m.g.tensor("c", std::move(c_dims), c_virtual ? DataType::f32 : DataType::bf16, {}, c_virtual);
  m.g.node("MatmulAttributes", OpKind::matmul, {{"a", m.a}, {"b", m.b}}, {{"c", m.c}}, MatmulParams{});
  return m;
}

std::int64_t pointwise(GraphBuilder& g, PointwiseOp op, std::int64_t in0, std::int64_t in1,
                       std::int64_t out) {
  std::vector<Port> inputs{{"in_0", in0}};
  if (in1 > 0) inputs.push_back({"in_1", in1});
  PointwiseParams p;
  p.op = op;
  g.node("PointwiseAttributes", OpKind::pointwise, inputs, {{"out_0", out}}, p);
  return out;
}

GemmProblem matched(const Graph& graph) {
  auto r = match_gemm(graph);
  EXPECT_TRUE(r.problem) << r.reason;
  return r.problem.value_or(GemmProblem{});
}

std::string refusal(const Graph& graph) {
  auto r = match_gemm(graph);
  EXPECT_FALSE(r.problem) << r.problem->summary;
  return r.reason;
}

TEST(CublasLtProblem, RowMajorMatmulIsTheTransposedColumnMajorProduct) {
  // C[M,N] = A[M,K] B[K,N], all row-major: D = Cᵀ (N x M) = Bᵀ Aᵀ, no operand transposed.
  auto m = matmul({64, 32}, {32, 48}, {64, 48});
  const GemmProblem p = matched(m.g.graph());
  EXPECT_TRUE(p.swapped);
  EXPECT_EQ(p.m, 48);
  EXPECT_EQ(p.n, 64);
  EXPECT_EQ(p.k, 32);
  EXPECT_EQ(p.batch, 1);
  EXPECT_EQ(p.a.uid, m.b);  // cuBLASLt's A is the graph's b
  EXPECT_EQ(p.b.uid, m.a);
  EXPECT_EQ(p.d.uid, m.c);
  EXPECT_FALSE(p.a.transposed);
  EXPECT_FALSE(p.b.transposed);
  EXPECT_EQ(p.a.rows, 48);
  EXPECT_EQ(p.a.cols, 32);
  EXPECT_EQ(p.a.ld, 48);
  EXPECT_EQ(p.b.rows, 32);
  EXPECT_EQ(p.b.cols, 64);
  EXPECT_EQ(p.b.ld, 32);
  EXPECT_EQ(p.d.rows, 48);
  EXPECT_EQ(p.d.cols, 64);
  EXPECT_EQ(p.d.ld, 48);
  EXPECT_EQ(p.epilogue, Epilogue::none);
}

TEST(CublasLtProblem, DecodeShapedMatmulKeepsLegalLeadingDimensions) {
  // m = 1: A is one row; its leading dimension must still be at least its rows (k).
  auto m = matmul({1, 4096}, {4096, 4096}, {1, 4096});
  const GemmProblem p = matched(m.g.graph());
  EXPECT_EQ(p.m, 4096);
  EXPECT_EQ(p.n, 1);
  EXPECT_EQ(p.b.rows, 4096);
  EXPECT_EQ(p.b.cols, 1);
  EXPECT_GE(p.b.ld, p.b.rows);
  EXPECT_GE(p.d.ld, p.d.rows);
}

TEST(CublasLtProblem, ColumnMajorOperandIsReadTransposed) {
  // b [K, N] stored column-major (strides [1, K]): Bᵀ is row-major, i.e. a transposed layout.
  auto m = matmul({64, 32}, {32, 48}, {64, 48}, false, {1, 32});
  const GemmProblem p = matched(m.g.graph());
  EXPECT_TRUE(p.a.transposed);
  EXPECT_EQ(p.a.rows, 32);
  EXPECT_EQ(p.a.cols, 48);
  EXPECT_EQ(p.a.ld, 32);
}

TEST(CublasLtProblem, BatchedAndBroadcastBatchUseStrideZero) {
  auto batched = matmul({8, 16, 32}, {8, 32, 24}, {8, 16, 24});
  const GemmProblem p = matched(batched.g.graph());
  EXPECT_EQ(p.batch, 8);
  EXPECT_EQ(p.a.batch_stride, 32 * 24);
  EXPECT_EQ(p.b.batch_stride, 16 * 32);
  EXPECT_EQ(p.d.batch_stride, 16 * 24);

  auto broadcast = matmul({2, 3, 16, 32}, {32, 24}, {2, 3, 16, 24});
  const GemmProblem q = matched(broadcast.g.graph());
  EXPECT_EQ(q.batch, 6);
  EXPECT_EQ(q.a.batch_stride, 0);  // the graph's b, shared by every batch
  EXPECT_EQ(q.b.batch_stride, 16 * 32);

  auto leading_one = matmul({1, 16, 32}, {4, 32, 24}, {4, 16, 24});
  EXPECT_EQ(matched(leading_one.g.graph()).b.batch_stride, 0);
}

TEST(CublasLtProblem, BatchBroadcastNoSingleStrideWalksIsRefused) {
  // a [2, 1, ...] against b [3, ...]: a's offset repeats every 3 batches, no one stride does that.
  auto m = matmul({2, 1, 16, 32}, {3, 32, 8}, {2, 3, 16, 8});
  EXPECT_NE(refusal(m.g.graph()).find("batch"), std::string::npos);
}

TEST(CublasLtProblem, CollapseBatchStride) {
  EXPECT_EQ(collapse_batch_stride({2, 3}, {300, 100}), 100);
  EXPECT_EQ(collapse_batch_stride({2, 3}, {0, 0}), 0);
  EXPECT_EQ(collapse_batch_stride({2, 3}, {0, 100}), std::nullopt);
  EXPECT_EQ(collapse_batch_stride({2, 3}, {100, 0}), std::nullopt);
  EXPECT_EQ(collapse_batch_stride({1, 3}, {7, 100}), 100);  // extent-1 dims impose nothing
  EXPECT_EQ(collapse_batch_stride({}, {}), 0);
}

TEST(CublasLtProblem, ColumnMajorLayout) {
  const auto n = column_major_layout(4, 5, 1, 4);
  ASSERT_TRUE(n);
  EXPECT_FALSE(n->transposed);
  EXPECT_EQ(n->ld, 4);
  const auto t = column_major_layout(4, 5, 5, 1);
  ASSERT_TRUE(t);
  EXPECT_TRUE(t->transposed);
  EXPECT_EQ(t->rows, 5);
  EXPECT_EQ(t->ld, 5);
  EXPECT_FALSE(column_major_layout(4, 5, 2, 8));  // neither dim contiguous
}

struct Chain {
  Mm m;
  std::int64_t bias = 0, out = 0;
};

// matmul -> [add bias] -> [activation] with packed virtual intermediates.
Chain chain(bool with_bias, std::optional<PointwiseOp> act, std::vector<std::int64_t> bias_dims = {1, 48}) {
  Chain c{matmul({64, 32}, {32, 48}, {64, 48}, true), 0, 0};
  std::int64_t cur = c.m.c;
  const int steps = (with_bias ? 1 : 0) + (act ? 1 : 0);
  int step = 0;
  const auto next = [&](const char* name) {
    ++step;
    return step == steps ? c.m.g.tensor(name, {64, 48}, DataType::bf16)
                         : c.m.g.virtual_tensor(name, {64, 48});
  };
  if (with_bias) {
    c.bias = c.m.g.tensor("bias", std::move(bias_dims), DataType::bf16);
    cur = pointwise(c.m.g, PointwiseOp::add, cur, c.bias, next("biased"));
  }
  if (act) cur = pointwise(c.m.g, *act, cur, -1, next("act"));
  c.out = cur;
  return c;
}

TEST(CublasLtProblem, EpiloguesFromPointwiseChains) {
  {
    auto c = chain(true, std::nullopt);
    const auto p = matched(c.m.g.graph());
    EXPECT_EQ(p.epilogue, Epilogue::bias);
    EXPECT_EQ(p.bias_uid, c.bias);
    EXPECT_EQ(p.d.uid, c.out);
  }
  EXPECT_EQ(matched(chain(false, PointwiseOp::relu).m.g.graph()).epilogue, Epilogue::relu);
  EXPECT_EQ(matched(chain(true, PointwiseOp::relu).m.g.graph()).epilogue, Epilogue::relu_bias);
  EXPECT_EQ(matched(chain(false, PointwiseOp::gelu_tanh).m.g.graph()).epilogue, Epilogue::gelu);
  EXPECT_EQ(matched(chain(true, PointwiseOp::gelu_tanh).m.g.graph()).epilogue, Epilogue::gelu_bias);
  // A rank-1 bias [N] broadcasts the same way.
  EXPECT_EQ(matched(chain(true, std::nullopt, {48}).m.g.graph()).epilogue, Epilogue::bias);
}

TEST(CublasLtProblem, ChainsCublasLtCannotFuseAreRefusedWithTheReason) {
  EXPECT_NE(refusal(chain(true, PointwiseOp::gelu).m.g.graph()).find("tanh approximation"),
            std::string::npos);
  EXPECT_NE(refusal(chain(false, PointwiseOp::sigmoid).m.g.graph()).find("not a cuBLASLt epilogue"),
            std::string::npos);
  // A bias per row of C (one value per m) is not the per-column vector cuBLASLt broadcasts here.
  EXPECT_NE(refusal(chain(true, std::nullopt, {64, 1}).m.g.graph()).find("not a bias vector"),
            std::string::npos);
  // A clipped relu has no epilogue.
  auto clipped = chain(false, PointwiseOp::relu);
  std::get<PointwiseParams>(clipped.m.g.graph().nodes.back().params).relu_upper_clip = 6.0;
  EXPECT_NE(refusal(clipped.m.g.graph()).find("clips"), std::string::npos);
}

TEST(CublasLtProblem, NonMatmulGraphsAreRefused) {
  GraphBuilder g("relu");
  const auto x = g.tensor("x", {4, 4});
  const auto y = g.tensor("y", {4, 4});
  pointwise(g, PointwiseOp::relu, x, -1, y);
  EXPECT_NE(refusal(g.graph()).find("first node is a pointwise"), std::string::npos);
}

TEST(CublasLtConfigs, PlanNamesShowEveryAttributeAndRoundTrip) {
  AlgoConfig c{.algo = 6,
               .tile = 20,
               .stages = 8,
               .splitk = 4,
               .reduction = 2,
               .swizzle = 1,
               .custom = 0,
               .cluster = 3,
               .inner = 0};
  const PlanSpec spec = to_spec(c, MathMode::standard);
  EXPECT_EQ(spec.name(), "algo6_tile=20_stages=8_splitk=4_red=2_swz=1_cust=0_clu=3_inner=0");
  EXPECT_EQ(from_spec(spec), c);
  const PlanSpec tf32 = to_spec(c, MathMode::tf32);
  EXPECT_EQ(tf32.engine_id, "algo6_tf32");
  EXPECT_EQ(from_spec(tf32), c);
  PlanSpec bad = spec;
  bad.knobs[0].value = "x";
  EXPECT_THROW(from_spec(bad), Unsupported);
  bad = spec;
  bad.engine_id = "eng6";
  EXPECT_THROW(from_spec(bad), Unsupported);
}

TEST(CublasLtConfigs, EngineIds) {
  EXPECT_EQ(engine_id(21, MathMode::standard), "algo21");
  const auto key = parse_engine_id("algo21_tf32");
  ASSERT_TRUE(key);
  EXPECT_EQ(key->algo, 21);
  EXPECT_EQ(key->math, MathMode::tf32);
  EXPECT_FALSE(parse_engine_id("algo"));
  EXPECT_FALSE(parse_engine_id("algox"));
  EXPECT_FALSE(parse_engine_id("eng3"));
}

TEST(CublasLtConfigs, EngineOrderIsHeuristicRankThenTheRest) {
  EXPECT_EQ(engine_order({0, 1, 6, 21, 66}, {21, 6, 21, 66}), (std::vector<int>{21, 6, 66, 0, 1}));
  EXPECT_EQ(engine_order({3, 1}, {}), (std::vector<int>{3, 1}));
  // The heuristic's pick is kept even when the id list lacks it: it is the OOTB row.
  EXPECT_EQ(engine_order({1}, {9}), (std::vector<int>{9, 1}));
}

TEST(CublasLtConfigs, CandidatesStartWithTheHeuristicAndVaryOneAttribute) {
  AlgoCaps caps;
  caps.tiles = {0, 18, 20};
  caps.stages = {8, 9};
  caps.splitk = true;
  caps.reduction_mask = 1 | 4;  // in place, output type
  caps.swizzle = true;
  caps.custom_max = 1;
  caps.clusters = false;
  const AlgoConfig h1{.algo = 6, .tile = 20, .stages = 8};
  const AlgoConfig h2{.algo = 6, .tile = 18, .stages = 9, .splitk = 2, .reduction = 1};
  const auto out = candidate_configs(AlgoConfig{.algo = 6}, {h1, h2}, caps);
  ASSERT_GE(out.size(), 3u);
  EXPECT_EQ(out[0], h1);
  EXPECT_EQ(out[1], h2);
  std::set<std::string> names;
  for (const auto& c : out) {
    EXPECT_EQ(c.algo, 6);
    EXPECT_TRUE(names.insert(to_spec(c, MathMode::standard).name()).second) << "duplicate";
    EXPECT_NE(c.reduction, 2u) << "compute-type reduction is not in the mask";
    EXPECT_EQ(c.cluster, 0) << "no clusters on this device";
    if (c.splitk == 1) {
      EXPECT_EQ(c.reduction, 0u);
    }
  }
  const auto has = [&](auto pred) { return std::any_of(out.begin(), out.end(), pred); };
  EXPECT_TRUE(has([](const AlgoConfig& c) { return c.splitk == 32 && c.reduction == 4; }));
  EXPECT_TRUE(has([](const AlgoConfig& c) { return c.swizzle == 1 && c.tile == 20; }));
  EXPECT_TRUE(has([](const AlgoConfig& c) { return c.custom == 1; }));
  EXPECT_TRUE(has([](const AlgoConfig& c) { return c.tile == 18 && c.stages == 0; }));

  caps.splitk = false;
  caps.clusters = true;
  const auto no_split = candidate_configs(AlgoConfig{.algo = 6}, {}, caps);
  EXPECT_EQ(no_split.front(), AlgoConfig{.algo = 6});  // no heuristic config: the default first
  EXPECT_FALSE(
      std::any_of(no_split.begin(), no_split.end(), [](const AlgoConfig& c) { return c.splitk != 1; }));
  EXPECT_TRUE(
      std::any_of(no_split.begin(), no_split.end(), [](const AlgoConfig& c) { return c.cluster == 3; }));
  EXPECT_EQ(capability_grid_size(caps), 2u * 2u * 1u * 2u * 2u * std::size(kClusterShapes));
}

// What cublasLtMatmulAlgoCheck may fill in (attributes left at 0) is the same config; anything
// it changes that the plan set is another config, so the plan would not be what it is named.
TEST(CublasLtConfigs, ConfigDiffersOnlyWhereThePlanSetAnAttribute) {
  const AlgoConfig want{.algo = 6, .tile = 0, .stages = 0, .splitk = 1};
  AlgoConfig got = want;
  got.tile = 20, got.stages = 8, got.cluster = 2, got.inner = 1;
  EXPECT_FALSE(config_differs(want, got));  // undefined attributes resolved
  got.reduction = 4;
  EXPECT_FALSE(config_differs(want, got));  // no K split: the scheme means nothing
  AlgoConfig split = want;
  split.splitk = 4, split.reduction = 1;
  AlgoConfig split_got = split;
  split_got.reduction = 4;
  EXPECT_TRUE(config_differs(split, split_got));
  AlgoConfig tiled = want;
  tiled.tile = 18;
  AlgoConfig retiled = tiled;
  retiled.tile = 20;
  EXPECT_TRUE(config_differs(tiled, retiled));
  AlgoConfig other = want;
  other.algo = 7;
  EXPECT_TRUE(config_differs(want, other));
  AlgoConfig swizzled = want;
  swizzled.swizzle = 1;
  EXPECT_TRUE(config_differs(want, swizzled));
}

// Some algos report CUSTOM_OPTION_MAX near INT32_MAX on the H200: the space tries a bounded
// number of options, and the grid size does not overflow.
TEST(CublasLtConfigs, HugeCustomOptionMaximumIsBounded) {
  AlgoCaps caps;
  caps.custom_max = std::numeric_limits<std::int32_t>::max();
  EXPECT_EQ(custom_options_tried(caps), kMaxCustomOptions);
  const auto out = candidate_configs(AlgoConfig{.algo = 3}, {}, caps);
  EXPECT_EQ(out.size(), static_cast<std::size_t>(kMaxCustomOptions));  // the base is custom option 0
  EXPECT_EQ(out.back().custom, static_cast<std::uint32_t>(kMaxCustomOptions - 1));
  EXPECT_EQ(capability_grid_size(caps), static_cast<std::uint64_t>(kMaxCustomOptions));
  caps.custom_max = 2;
  EXPECT_EQ(custom_options_tried(caps), 3);
  caps.custom_max = -1;  // an algo that reports nothing: option 0 only
  EXPECT_EQ(custom_options_tried(caps), 1);
}

}  // namespace
}  // namespace dnnbench::cublaslt
