#include "providers/cublaslt/problem.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace dnnbench::cublaslt {

std::string_view epilogue_name(Epilogue e) {
  switch (e) {
    case Epilogue::none:
      return "none";
    case Epilogue::bias:
      return "bias";
    case Epilogue::relu:
      return "relu";
    case Epilogue::relu_bias:
      return "bias+relu";
    case Epilogue::gelu:
      return "gelu";
    case Epilogue::gelu_bias:
      return "bias+gelu";
  }
  return "?";
}

std::optional<std::int64_t> collapse_batch_stride(const std::vector<std::int64_t>& dims,
                                                  const std::vector<std::int64_t>& strides) {
  // Walk from the innermost batch dim outwards: flat index i = sum(idx[d] * prod(dims[d+1..])), so
  // one stride S serves every dim only if strides[d] == S * prod(dims[d+1..]) (dims of extent 1
  // never move the index and impose nothing).
  std::optional<std::int64_t> stride;
  std::int64_t inner = 1;
  for (std::size_t i = dims.size(); i-- > 0;) {
    if (dims[i] == 1) continue;
    if (!stride) {
      stride = strides[i];
    } else if (strides[i] != *stride * inner) {
      return std::nullopt;
    }
    inner *= dims[i];
  }
  return stride.value_or(0);
}

std::optional<MatrixLayout> column_major_layout(std::int64_t r, std::int64_t c, std::int64_t sr,
                                                std::int64_t sc) {
  MatrixLayout l;
  // Column-major r x c: rows contiguous (sr == 1), columns ld = sc apart, ld >= rows. A dimension
  // of extent 1 never moves, so its stride does not matter; ld then only needs to be legal.
  if ((sr == 1 || r == 1) && (c == 1 || sc >= r)) {
    l.rows = r, l.cols = c, l.ld = c == 1 ? std::max<std::int64_t>(r, 1) : sc;
    return l;
  }
  // Row-major r x c is the column-major c x r, read transposed.
  if ((sc == 1 || c == 1) && (r == 1 || sr >= c)) {
    l.rows = c, l.cols = r, l.ld = r == 1 ? std::max<std::int64_t>(c, 1) : sr, l.transposed = true;
    return l;
  }
  return std::nullopt;
}

namespace {

std::string dims_text(const std::vector<std::int64_t>& dims) {
  return fmt::format("{}", fmt::join(dims, "x"));
}

// The operand's strides for each of the output's batch dims (leading dims aligned from the
// right; 0 where the operand has fewer dims or extent 1, i.e. broadcasts).
std::vector<std::int64_t> batch_strides(const TensorDesc& t, const std::vector<std::int64_t>& out_batch) {
  const std::size_t rank = t.dims.size() - 2, out_rank = out_batch.size();
  std::vector<std::int64_t> s(out_rank, 0);
  for (std::size_t j = 0; j < out_rank; ++j) {
    if (j + rank < out_rank) continue;
    const std::size_t i = j + rank - out_rank;
    s[j] = t.dims[i] == 1 ? 0 : t.strides[i];
  }
  return s;
}

const Node* consumer_of(const Graph& graph, std::size_t after, std::int64_t uid) {
  for (std::size_t i = after; i < graph.nodes.size(); ++i)
    for (const auto& p : graph.nodes[i].inputs)
      if (p.uid == uid) return &graph.nodes[i];
  return nullptr;
}

ProblemOrReason refuse(std::string reason) {
  return {std::nullopt, std::move(reason)};
}

}  // namespace

ProblemOrReason match_gemm(const Graph& graph) {
  if (graph.nodes.empty() || graph.nodes.front().kind != OpKind::matmul)
    return refuse(
        "cuBLASLt runs a matmul, optionally followed by a pointwise epilogue; this graph's first node is " +
        (graph.nodes.empty() ? std::string("absent")
                             : "a " + std::string(op_kind_name(graph.nodes.front().kind))));
  const Node& mm = graph.nodes.front();
  const auto a_uid = mm.input("a"), b_uid = mm.input("b"), c_uid = mm.output("c");
  if (!a_uid || !b_uid || !c_uid) return refuse("matmul node '" + mm.name + "' lacks a, b or c");
  const TensorDesc &ta = graph.tensor(*a_uid), &tb = graph.tensor(*b_uid), &tc = graph.tensor(*c_uid);
  if (ta.dims.size() < 2 || tb.dims.size() < 2 || tc.dims.size() < 2)
    return refuse("matmul operands need at least 2 dims");

  GemmProblem p;
  p.compute_type = mm.compute_type == DataType::unset ? DataType::f32 : mm.compute_type;

  // The epilogue: the pointwise nodes after the matmul, each consuming the previous output.
  std::vector<const Node*> chain;
  std::int64_t out_uid = *c_uid;
  for (std::size_t i = 1; i < graph.nodes.size(); ++i) {
    const Node& n = graph.nodes[i];
    if (n.kind != OpKind::pointwise)
      return refuse(
          fmt::format("node '{}' ({}) after the matmul is not a pointwise epilogue", n.name, n.type));
    const bool reads_prev =
        std::any_of(n.inputs.begin(), n.inputs.end(), [&](const Port& port) { return port.uid == out_uid; });
    if (!reads_prev)
      return refuse(fmt::format("node '{}' does not consume the previous node's output", n.name));
    if (!graph.tensor(out_uid).is_virtual)
      return refuse(
          fmt::format("tensor '{}' is a graph output inside the epilogue chain; cuBLASLt writes only "
                      "the chain's last output",
                      graph.tensor(out_uid).name));
    if (const Node* other = consumer_of(graph, i + 1, out_uid))
      return refuse(fmt::format("tensor '{}' feeds node '{}' too; an epilogue chain reads each result once",
                                graph.tensor(out_uid).name, other->name));
    const auto out = n.output("out_0");
    if (!out) return refuse(fmt::format("pointwise node '{}' has no out_0", n.name));
    chain.push_back(&n);
    out_uid = *out;
  }
  const TensorDesc& tout = graph.tensor(out_uid);
  if (tout.is_virtual) return refuse("the graph's last tensor is virtual");
  if (tout.dims != tc.dims)
    return refuse(fmt::format("the epilogue's output dims {} differ from the matmul's {}",
                              dims_text(tout.dims), dims_text(tc.dims)));

  const std::size_t rank = tc.dims.size();
  const std::int64_t M = tc.dims[rank - 2], N = tc.dims[rank - 1], K = ta.dims[ta.dims.size() - 1];
  const std::vector<std::int64_t> batch(tc.dims.begin(), tc.dims.end() - 2);
  for (auto d : batch) p.batch *= d;

  const auto sa = collapse_batch_stride(batch, batch_strides(ta, batch));
  const auto sb = collapse_batch_stride(batch, batch_strides(tb, batch));
  const auto sd = collapse_batch_stride(batch, batch_strides(tout, batch));
  if (!sa || !sb || !sd)
    return refuse(
        fmt::format("the batch dims {} (a: {}, b: {}) broadcast in a way one cuBLASLt batch stride per "
                    "operand cannot walk",
                    dims_text(batch), dims_text(ta.dims), dims_text(tb.dims)));

  const auto s2 = [](const TensorDesc& t, std::size_t from_end) {
    return t.strides[t.strides.size() - from_end];
  };
  // Row-major orientation first (D = Cᵀ = Bᵀ Aᵀ: the common case, and the one PyTorch poses),
  // then the column-major one (D = C = A B).
  for (const bool swapped : {true, false}) {
    const auto d = swapped ? column_major_layout(N, M, s2(tout, 1), s2(tout, 2))
                           : column_major_layout(M, N, s2(tout, 2), s2(tout, 1));
    if (!d || d->transposed) continue;
    const auto x = swapped ? column_major_layout(N, K, s2(tb, 1), s2(tb, 2))
                           : column_major_layout(M, K, s2(ta, 2), s2(ta, 1));
    const auto y = swapped ? column_major_layout(K, M, s2(ta, 1), s2(ta, 2))
                           : column_major_layout(K, N, s2(tb, 2), s2(tb, 1));
    if (!x || !y) continue;
    p.swapped = swapped;
    p.d = *d, p.a = *x, p.b = *y;
    p.m = swapped ? N : M, p.n = swapped ? M : N, p.k = K;
    break;
  }
  if (p.m == 0 && p.n == 0)
    return refuse(
        fmt::format("no operand orientation gives cuBLASLt contiguous rows or columns (a strides {}, "
                    "b strides {}, output strides {})",
                    dims_text(ta.strides), dims_text(tb.strides), dims_text(tout.strides)));
  const auto& first = p.swapped ? tb : ta;
  const auto& second = p.swapped ? ta : tb;
  p.a.dtype = first.dtype, p.a.uid = first.uid, p.a.batch_stride = p.swapped ? *sb : *sa;
  p.b.dtype = second.dtype, p.b.uid = second.uid, p.b.batch_stride = p.swapped ? *sa : *sb;
  p.d.dtype = tout.dtype, p.d.uid = tout.uid, p.d.batch_stride = *sd;

  // The chain as an epilogue: [add bias] then at most one of relu / gelu (tanh form).
  std::size_t i = 0;
  if (i < chain.size() && chain[i]->as<PointwiseParams>().op == PointwiseOp::add) {
    const Node& add = *chain[i];
    const std::int64_t prev = i == 0 ? *c_uid : *chain[i - 1]->output("out_0");
    std::optional<std::int64_t> other;
    for (const auto& port : add.inputs)
      if (port.uid != prev) other = port.uid;
    if (!other) return refuse(fmt::format("add node '{}' adds the matmul result to itself", add.name));
    const TensorDesc& bias = graph.tensor(*other);
    // A bias vector over D's rows: the output's last dim (N) in the row-major orientation, M otherwise.
    const std::size_t along = p.swapped ? 1 : 2;  // from the end
    bool is_vector = !bias.is_virtual && bias.dims.size() <= rank && bias.dims.size() >= 1;
    for (std::size_t j = 0; is_vector && j < bias.dims.size(); ++j) {
      const std::size_t from_end = bias.dims.size() - j;
      const std::int64_t want = from_end == along ? tout.dims[rank - along] : 1;
      if (bias.dims[j] != want) is_vector = false;
      if (from_end == along && bias.dims[j] > 1 && bias.strides[j] != 1) is_vector = false;
    }
    if (bias.dims.size() < along) is_vector = p.d.rows == 1 && is_vector;
    if (!is_vector)
      return refuse(
          fmt::format("add node '{}': tensor '{}' {} is not a bias vector over the output's {} dim "
                      "(cuBLASLt's bias epilogue broadcasts one value per {})",
                      add.name, bias.name, dims_text(bias.dims), p.swapped ? "last" : "second-to-last",
                      p.swapped ? "column" : "row"));
    p.bias_uid = bias.uid;
    p.bias_dtype = bias.dtype;
    p.epilogue = Epilogue::bias;
    ++i;
  }
  if (i < chain.size()) {
    const Node& act = *chain[i];
    const auto& pw = act.as<PointwiseParams>();
    if (pw.op == PointwiseOp::relu) {
      const bool plain = (!pw.relu_lower_clip || *pw.relu_lower_clip == 0.0) && !pw.relu_upper_clip &&
                         (!pw.relu_lower_clip_slope || *pw.relu_lower_clip_slope == 0.0);
      if (!plain)
        return refuse(
            fmt::format("relu node '{}' has clips or a slope; cuBLASLt's RELU epilogue has none", act.name));
      p.epilogue = p.epilogue == Epilogue::bias ? Epilogue::relu_bias : Epilogue::relu;
    } else if (pw.op == PointwiseOp::gelu_tanh) {
      p.epilogue = p.epilogue == Epilogue::bias ? Epilogue::gelu_bias : Epilogue::gelu;
    } else if (pw.op == PointwiseOp::gelu) {
      // Not a naming quibble: the two differ by up to ~5e-4 absolute, so a row would run another
      // function than the graph's and be judged against the wrong reference.
      return refuse(
          fmt::format("gelu node '{}' is the erf GELU (gelu_fwd); cuBLASLt's GELU epilogue computes the "
                      "tanh approximation (gelu_tanh_fwd)",
                      act.name));
    } else {
      return refuse(
          fmt::format("pointwise node '{}' ({}) is not a cuBLASLt epilogue (bias add, relu, gelu_tanh)",
                      act.name, pointwise_op_name(pw.op)));
    }
    ++i;
  }
  if (i < chain.size())
    return refuse(fmt::format(
        "node '{}' follows the epilogue; cuBLASLt fuses one bias add and one activation", chain[i]->name));

  p.summary =
      fmt::format("matmul [{}] x [{}] -> [{}] {}{}{}, {} orientation, cuBLASLt m={} n={} k={} batch={}",
                  dims_text(ta.dims), dims_text(tb.dims), dims_text(tout.dims), dtype_name(ta.dtype),
                  p.epilogue == Epilogue::none ? "" : ", epilogue ",
                  p.epilogue == Epilogue::none ? "" : epilogue_name(p.epilogue),
                  p.swapped ? "row-major (D = Bᵀ·Aᵀ)" : "column-major (D = A·B)", p.m, p.n, p.k, p.batch);
  return {std::move(p), ""};
}

}  // namespace dnnbench::cublaslt
