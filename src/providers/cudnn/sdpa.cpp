// Attention on cuDNN's fused flash-attention engines. cuDNN has no single backend operation for
// masked attention in 9.14 (OPERATION_SDPA_FWD takes no masks), so the node is lowered as the
// pattern those engines recognise, the way cuDNN's frontend builds it (its sdpa node, read to
// learn):
//   S = Q . K^T (K seen transposed through its strides) -> S * scale [-> + attn_mask]
//   [-> padding: keep row < seq_len_q and col < seq_len_kv]
//   [-> right bound / causal: keep row (+ seq_kv - seq_q) (+ right_bound) >= col]
//   [-> left bound: keep col + left_bound (- (seq_kv - seq_q)) > row]
//   -> softmax as MAX, SUB, EXP, ADD-reduction, DIV [stats = max + log(sum)] -> O = P . V
// Every mask is GEN_INDEX + CMP + BINARY_SELECT(S, -inf). Intermediates are fp32 and virtual,
// except P, which bmm2 takes in the io type (a requirement of those engines).
#include <limits>

#include "graph/ops/sdpa_mask.hpp"
#include "providers/cudnn/lowering.hpp"
#include "providers/provider.hpp"

namespace dnnbench::cudnn {

namespace {

constexpr std::size_t kRank = 4;

// One pointwise op with up to three inputs (x, b, t) and an optional axis; add_pointwise
// (pointwise.cpp) covers the one- and two-input ops of graphs, this covers GEN_INDEX (axis) and
// BINARY_SELECT (t).
struct Pw {
  Lowering& low;
  const Descriptor& op(cudnnPointwiseMode_t mode, cudnnDataType_t math, const Descriptor& x,
                       const Descriptor* b, const Descriptor& y, std::string_view label,
                       const Descriptor* t = nullptr, std::optional<std::int64_t> axis = std::nullopt) {
    Descriptor pw(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    set(pw, CUDNN_ATTR_POINTWISE_MODE, mode);
    set(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, math);
    if (axis) set(pw, CUDNN_ATTR_POINTWISE_AXIS, *axis);
    pw.finalize("pointwise descriptor (" + std::string(label) + ")");
    const Descriptor& kept = low.keep(std::move(pw));
    Descriptor o(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    set(o, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, kept);
    set(o, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x);
    if (b) set(o, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, *b);
    if (t) set(o, CUDNN_ATTR_OPERATION_POINTWISE_TDESC, *t);
    set(o, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y);
    o.finalize("pointwise operation (" + std::string(label) + ")");
    low.add_op(std::move(o), label);
    return y;
  }
};

void add_reduction(Lowering& low, cudnnReduceTensorOp_t mode, const Descriptor& x, const Descriptor& y,
                   std::string_view label) {
  Descriptor red(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
  set(red, CUDNN_ATTR_REDUCTION_OPERATOR, mode);
  set(red, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_DATA_FLOAT);
  red.finalize("reduction descriptor (" + std::string(label) + ")");
  const Descriptor& kept = low.keep(std::move(red));
  Descriptor op(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
  set(op, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, x);
  set(op, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, y);
  set(op, CUDNN_ATTR_OPERATION_REDUCTION_DESC, kept);
  op.finalize("reduction operation (" + std::string(label) + ")");
  low.add_op(std::move(op), label);
}

// Matmul with the padding-mask overrides: rows past seq_len_q / keys past seq_len_kv are not
// computed (m, n or k override per batch) and read as `padding` 0.
struct Overrides {
  const Descriptor *m = nullptr, *n = nullptr, *k = nullptr;
};
void add_matmul(Lowering& low, const Descriptor& a, const Descriptor& b, const Descriptor& c,
                const Overrides& o, bool padded, std::string_view label) {
  Descriptor mm(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
  set(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_DATA_FLOAT);
  if (padded) set(mm, CUDNN_ATTR_MATMUL_PADDING_VALUE, 0.0);
  mm.finalize("matmul descriptor (" + std::string(label) + ")");
  const Descriptor& kept = low.keep(std::move(mm));
  Descriptor op(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
  set(op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, a);
  set(op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, b);
  set(op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, c);
  set(op, CUDNN_ATTR_OPERATION_MATMUL_DESC, kept);
  if (o.m) set(op, CUDNN_ATTR_OPERATION_MATMUL_GEMM_M_OVERRIDE_DESC, *o.m);
  if (o.n) set(op, CUDNN_ATTR_OPERATION_MATMUL_GEMM_N_OVERRIDE_DESC, *o.n);
  if (o.k) set(op, CUDNN_ATTR_OPERATION_MATMUL_GEMM_K_OVERRIDE_DESC, *o.k);
  op.finalize("matmul operation (" + std::string(label) + ")");
  low.add_op(std::move(op), label);
}

Shape packed(std::vector<std::int64_t> dims) {
  std::vector<std::int64_t> strides(dims.size(), 1);
  for (std::size_t i = dims.size() - 1; i-- > 0;) strides[i] = strides[i + 1] * dims[i + 1];
  return {std::move(dims), std::move(strides)};
}

// K [b, h, s_kv, d] seen as K^T [b, h, d, s_kv]: the same memory, the last two dims swapped.
Shape transposed(const TensorDesc& t) {
  Shape s{t.dims, t.strides};
  std::swap(s.dims[2], s.dims[3]);
  std::swap(s.strides[2], s.strides[3]);
  return s;
}

void check_supported(const Graph& g, const Node& node, const SdpaShape& s) {
  const DataType io = g.tensor(input_uid(node, "q")).dtype;
  if (io != DataType::f16 && io != DataType::bf16)
    throw Unsupported(
        std::string("cuDNN's fused attention takes fp16 or bf16 q, k and v; this graph's are ") +
        std::string(dtype_name(io)));
  if (s.b == 0) throw Unsupported("attention node without rank-4 q, k and v");
}

// The chain shared by forward and backward: S = scale * Q.K^T [+ mask], masked; returns S.
struct ScoreChain {
  const Descriptor* s = nullptr;
  const Descriptor *seq_q = nullptr, *seq_kv = nullptr;
};

ScoreChain masked_scores(Lowering& low, const Node& node, const SdpaShape& sh, const SdpaParams& p) {
  const Graph& g = low.graph();
  Pw pw{low};
  const DataType f32 = DataType::f32;
  const Shape scores = packed({sh.b, sh.h_q, sh.s_q, sh.s_kv});
  ScoreChain out;
  if (p.padding_mask) {
    out.seq_q = &low.tensor(input_uid(node, "seq_len_q"), Shape{{sh.b, 1, 1, 1}, {1, 1, 1, 1}});
    out.seq_kv = &low.tensor(input_uid(node, "seq_len_kv"), Shape{{sh.b, 1, 1, 1}, {1, 1, 1, 1}});
  }
  const Descriptor& q = low.tensor(input_uid(node, "q"));
  const std::int64_t k_uid = input_uid(node, "k");
  const Descriptor& kt = low.tensor(k_uid, transposed(g.tensor(k_uid)));
  const Descriptor* last = &low.virtual_tensor(scores, f32);
  add_matmul(low, q, kt, *last, {out.seq_q, out.seq_kv, nullptr}, p.padding_mask, "bmm1");

  const auto next = [&] { return &low.virtual_tensor(scores, f32); };
  if (p.scale_value || node.input("scale")) {
    const Descriptor& scale =
        node.input("scale") ? low.tensor(input_uid(node, "scale"), Shape{{1, 1, 1, 1}, {1, 1, 1, 1}}, f32)
                            : low.constant(*p.scale_value, f32, kRank);
    last = &pw.op(CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, *last, &scale, *next(), "scale");
  }
  const double neg_inf = -std::numeric_limits<double>::infinity();
  if (const auto mask = node.input("attn_mask")) {
    if (g.tensor(*mask).dtype == DataType::boolean)  // keep where true
      last = &pw.op(CUDNN_POINTWISE_BINARY_SELECT, CUDNN_DATA_FLOAT, *last,
                    &low.constant(neg_inf, f32, kRank), *next(), "select_mask", &low.tensor(*mask));
    else
      last = &pw.op(CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, *last, &low.tensor(*mask), *next(), "add_mask");
  }

  const auto index = [&](const Descriptor& of, std::int64_t axis, cudnnDataType_t math) -> const Descriptor& {
    return pw.op(CUDNN_POINTWISE_GEN_INDEX, math, of, nullptr, low.virtual_tensor(scores, DataType::i32),
                 axis == 2 ? "gen_row_index" : "gen_col_index", nullptr, axis);
  };
  const auto boolean = [&] { return &low.virtual_tensor(scores, DataType::boolean); };
  const auto select = [&](const Descriptor& keep, std::string_view label) {
    last = &pw.op(CUDNN_POINTWISE_BINARY_SELECT, CUDNN_DATA_FLOAT, *last, &low.constant(neg_inf, f32, kRank),
                  *next(), label, &keep);
  };
  if (p.padding_mask) {
    const Descriptor& row = index(*last, 2, CUDNN_DATA_INT32);
    const Descriptor& col = index(*last, 3, CUDNN_DATA_INT32);
    const Descriptor& row_ok =
        pw.op(CUDNN_POINTWISE_CMP_LT, CUDNN_DATA_BOOLEAN, row, out.seq_q, *boolean(), "row<seq_q");
    const Descriptor& col_ok =
        pw.op(CUDNN_POINTWISE_CMP_LT, CUDNN_DATA_BOOLEAN, col, out.seq_kv, *boolean(), "col<seq_kv");
    select(pw.op(CUDNN_POINTWISE_LOGICAL_AND, CUDNN_DATA_BOOLEAN, row_ok, &col_ok, *boolean(), "and"),
           "select_padding");
  }
  const bool bottom_right = p.alignment == DiagonalAlignment::bottom_right;
  const auto i32 = [&](double v) -> const Descriptor& { return low.constant(v, DataType::i32, kRank); };
  const auto int_op = [&](cudnnPointwiseMode_t mode, const Descriptor& x, const Descriptor& b,
                          std::string_view label) -> const Descriptor& {
    return pw.op(mode, CUDNN_DATA_INT32, x, &b, low.virtual_tensor(scores, DataType::i32), label, nullptr, 3);
  };
  if (p.right_bound) {
    const Descriptor* row = &index(*last, 2, CUDNN_DATA_FLOAT);
    const Descriptor& col = index(*last, 3, CUDNN_DATA_FLOAT);
    if (bottom_right) {
      row = &int_op(CUDNN_POINTWISE_ADD, *row, out.seq_kv ? *out.seq_kv : i32(static_cast<double>(sh.s_kv)),
                    "row+skv");
      row = &int_op(CUDNN_POINTWISE_SUB, *row, out.seq_q ? *out.seq_q : i32(static_cast<double>(sh.s_q)),
                    "row-sq");
    }
    if (*p.right_bound != 0)
      row = &int_op(CUDNN_POINTWISE_ADD, *row, i32(static_cast<double>(*p.right_bound)), "row+window");
    select(pw.op(CUDNN_POINTWISE_CMP_GE, CUDNN_DATA_BOOLEAN, *row, &col, *boolean(), "row>=col"),
           "select_right_bound");
  }
  if (p.left_bound) {
    const Descriptor& row = index(*last, 2, CUDNN_DATA_FLOAT);
    const Descriptor* col = &index(*last, 3, CUDNN_DATA_FLOAT);
    if (!bottom_right || !p.padding_mask) {
      // A float offset (the frontend's choice): col + left_bound [- (s_kv - s_q)].
      const double offset =
          static_cast<double>(*p.left_bound) - (bottom_right ? static_cast<double>(sh.s_kv - sh.s_q) : 0.0);
      col = &pw.op(CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, *col, &low.constant(offset, f32, kRank),
                   low.virtual_tensor(scores, f32), "col+window", nullptr, 3);
    } else {
      col = &int_op(CUDNN_POINTWISE_ADD, *col, i32(static_cast<double>(*p.left_bound)), "col+window");
      col = &int_op(CUDNN_POINTWISE_SUB, *col, *out.seq_kv, "col-skv");
      col = &int_op(CUDNN_POINTWISE_ADD, *col, *out.seq_q, "col+sq");
    }
    select(pw.op(CUDNN_POINTWISE_CMP_GT, CUDNN_DATA_BOOLEAN, *col, &row, *boolean(), "col>row"),
           "select_left_bound");
  }
  out.s = last;
  return out;
}

}  // namespace

void lower_sdpa_fwd(Lowering& low, const Node& node) {
  const Graph& g = low.graph();
  const auto& p = node.as<SdpaParams>();
  const SdpaShape sh = sdpa_shape(g, node);
  check_supported(g, node, sh);
  Pw pw{low};
  const DataType f32 = DataType::f32;
  const Shape scores = packed({sh.b, sh.h_q, sh.s_q, sh.s_kv});
  const Shape row = packed({sh.b, sh.h_q, sh.s_q, 1});
  const ScoreChain chain = masked_scores(low, node, sh, p);

  const Descriptor& max = low.virtual_tensor(row, f32);
  add_reduction(low, CUDNN_REDUCE_TENSOR_MAX, *chain.s, max, "max");
  const Descriptor& centered =
      pw.op(CUDNN_POINTWISE_SUB, CUDNN_DATA_FLOAT, *chain.s, &max, low.virtual_tensor(scores, f32), "sub");
  const Descriptor& e =
      pw.op(CUDNN_POINTWISE_EXP, CUDNN_DATA_FLOAT, centered, nullptr, low.virtual_tensor(scores, f32), "exp");
  const Descriptor& sum = low.virtual_tensor(row, f32);
  add_reduction(low, CUDNN_REDUCE_TENSOR_ADD, e, sum, "sum");
  if (const auto stats = node.output("stats")) {
    const Descriptor& log =
        pw.op(CUDNN_POINTWISE_LOG, CUDNN_DATA_FLOAT, sum, nullptr, low.virtual_tensor(row, f32), "log");
    pw.op(CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, max, &log, low.tensor(*stats), "stats");
  }
  const DataType io = g.tensor(input_uid(node, "q")).dtype;
  const Descriptor& probs =
      pw.op(CUDNN_POINTWISE_DIV, CUDNN_DATA_FLOAT, e, &sum, low.virtual_tensor(scores, io), "div");
  add_matmul(low, probs, low.tensor(input_uid(node, "v")), low.tensor(output_uid(node, "o")),
             {chain.seq_q, nullptr, chain.seq_kv}, false, "bmm2");
}

void lower_sdpa_bwd(Lowering&, const Node&) {
  throw Unsupported("the cudnn provider does not lower attention backward (SdpaBackwardAttributes) yet");
}

}  // namespace dnnbench::cudnn
