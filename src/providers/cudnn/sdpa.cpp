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
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "graph/ops/sdpa_mask.hpp"
#include "providers/cudnn/lowering.hpp"
#include "providers/provider.hpp"

namespace dnnbench::cudnn {

namespace {

// Scalars (scale, -inf, offsets) as by-value tensors of the scores' rank: cuDNN 9.14 refuses a
// pointwise op whose operands differ in rank (BAD_PARAM "xDesc.getNbDims() != bDesc.getNbDims()",
// measured on the H200 with rank-1 scalars).
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

// Per-batch lengths as cuDNN reads them: the graph's seq_len tensors under a padding mask, or
// lowering-made ones (see lower_sdpa_bwd); null when the scores are not padded.
struct Lengths {
  const Descriptor *q = nullptr, *kv = nullptr;
};

// S = Q . K^T (* scale) (+ / select attn_mask) (padding): the part before the softmax statistics.
// `padding_value`: rows past the lengths read as 0 in bmm1 (the forward's setting).
const Descriptor* scaled_scores(Lowering& low, const Node& node, const SdpaShape& sh, const SdpaParams& p,
                                const Lengths& len, bool padding_value) {
  const Graph& g = low.graph();
  Pw pw{low};
  const DataType f32 = DataType::f32;
  const Shape scores = packed({sh.b, sh.h_q, sh.s_q, sh.s_kv});
  const Descriptor& q = low.tensor(input_uid(node, "q"));
  const std::int64_t k_uid = input_uid(node, "k");
  const Descriptor& kt = low.tensor(k_uid, transposed(g.tensor(k_uid)));
  const Descriptor* last = &low.virtual_tensor(scores, f32);
  add_matmul(low, q, kt, *last, {len.q, len.kv, nullptr}, padding_value && len.q, "bmm1");
  const auto next = [&] { return &low.virtual_tensor(scores, f32); };
  if (p.scale_value || node.input("scale")) {
    // Scalars as the frontend makes them: one element, rank 1.
    const Descriptor& scale = node.input("scale") ? low.tensor(input_uid(node, "scale"), Shape{{1}, {1}}, f32)
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
  if (len.q) {
    const auto index = [&](std::int64_t axis) -> const Descriptor& {
      return pw.op(CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_INT32, *last, nullptr,
                   low.virtual_tensor(scores, DataType::i32), axis == 2 ? "gen_row_index" : "gen_col_index",
                   nullptr, axis);
    };
    const Descriptor& row = index(2);
    const Descriptor& col = index(3);
    const auto boolean = [&] { return &low.virtual_tensor(scores, DataType::boolean); };
    const Descriptor& row_ok =
        pw.op(CUDNN_POINTWISE_CMP_LT, CUDNN_DATA_BOOLEAN, row, len.q, *boolean(), "row<seq_q");
    const Descriptor& col_ok =
        pw.op(CUDNN_POINTWISE_CMP_LT, CUDNN_DATA_BOOLEAN, col, len.kv, *boolean(), "col<seq_kv");
    const Descriptor& keep =
        pw.op(CUDNN_POINTWISE_LOGICAL_AND, CUDNN_DATA_BOOLEAN, row_ok, &col_ok, *boolean(), "and");
    last = &pw.op(CUDNN_POINTWISE_BINARY_SELECT, CUDNN_DATA_FLOAT, *last, &low.constant(neg_inf, f32, kRank),
                  *next(), "select_padding", &keep);
  }
  return last;
}

// The diagonal band: right bound (causal) and left bound (sliding window), on `x`.
const Descriptor* band_masks(Lowering& low, const SdpaShape& sh, const SdpaParams& p, const Lengths& len,
                             const Descriptor* x) {
  Pw pw{low};
  const DataType f32 = DataType::f32;
  const Shape scores = packed({sh.b, sh.h_q, sh.s_q, sh.s_kv});
  const double neg_inf = -std::numeric_limits<double>::infinity();
  const auto index = [&](std::int64_t axis) -> const Descriptor& {
    return pw.op(CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_FLOAT, *x, nullptr,
                 low.virtual_tensor(scores, DataType::i32), axis == 2 ? "gen_row_index" : "gen_col_index",
                 nullptr, axis);
  };
  const auto boolean = [&] { return &low.virtual_tensor(scores, DataType::boolean); };
  const auto i32 = [&](double v) -> const Descriptor& { return low.constant(v, DataType::i32, kRank); };
  const auto int_op = [&](cudnnPointwiseMode_t mode, const Descriptor& a, const Descriptor& b,
                          std::string_view label) -> const Descriptor& {
    return pw.op(mode, CUDNN_DATA_INT32, a, &b, low.virtual_tensor(scores, DataType::i32), label, nullptr, 3);
  };
  const auto select = [&](const Descriptor& keep, std::string_view label) {
    x = &pw.op(CUDNN_POINTWISE_BINARY_SELECT, CUDNN_DATA_FLOAT, *x, &low.constant(neg_inf, f32, kRank),
               low.virtual_tensor(scores, f32), label, &keep);
  };
  const bool bottom_right = p.alignment == DiagonalAlignment::bottom_right;
  if (p.right_bound) {
    const Descriptor* row = &index(2);
    const Descriptor& col = index(3);
    if (bottom_right) {
      row =
          &int_op(CUDNN_POINTWISE_ADD, *row, len.kv ? *len.kv : i32(static_cast<double>(sh.s_kv)), "row+skv");
      row = &int_op(CUDNN_POINTWISE_SUB, *row, len.q ? *len.q : i32(static_cast<double>(sh.s_q)), "row-sq");
    }
    if (*p.right_bound != 0)
      row = &int_op(CUDNN_POINTWISE_ADD, *row, i32(static_cast<double>(*p.right_bound)), "row+window");
    select(pw.op(CUDNN_POINTWISE_CMP_GE, CUDNN_DATA_BOOLEAN, *row, &col, *boolean(), "row>=col"),
           "select_right_bound");
  }
  if (p.left_bound) {
    const Descriptor& row = index(2);
    const Descriptor* col = &index(3);
    if (!bottom_right || !len.q) {
      // A float offset, as the frontend makes it: col + left_bound [- (s_kv - s_q)].
      const double offset =
          static_cast<double>(*p.left_bound) - (bottom_right ? static_cast<double>(sh.s_kv - sh.s_q) : 0.0);
      col = &pw.op(CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, *col, &low.constant(offset, f32, kRank),
                   low.virtual_tensor(scores, f32), "col+window", nullptr, 3);
    } else {
      col = &int_op(CUDNN_POINTWISE_ADD, *col, i32(static_cast<double>(*p.left_bound)), "col+window");
      col = &int_op(CUDNN_POINTWISE_SUB, *col, *len.kv, "col-skv");
      col = &int_op(CUDNN_POINTWISE_ADD, *col, *len.q, "col+sq");
    }
    select(pw.op(CUDNN_POINTWISE_CMP_GT, CUDNN_DATA_BOOLEAN, *col, &row, *boolean(), "col>row"),
           "select_left_bound");
  }
  return x;
}

Lengths graph_lengths(Lowering& low, const Node& node, const SdpaShape& sh, const SdpaParams& p) {
  if (!p.padding_mask) return {};
  const Shape per_batch{{sh.b, 1, 1, 1}, {1, 1, 1, 1}};
  return {&low.tensor(input_uid(node, "seq_len_q"), per_batch),
          &low.tensor(input_uid(node, "seq_len_kv"), per_batch)};
}

void add_reshape(Lowering& low, const Descriptor& x, const Descriptor& y, std::string_view label) {
  Descriptor op(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR);
  set(op, CUDNN_ATTR_OPERATION_RESHAPE_XDESC, x);
  set(op, CUDNN_ATTR_OPERATION_RESHAPE_YDESC, y);
  op.finalize("reshape operation (" + std::string(label) + ")");
  low.add_op(std::move(op), label);
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
  const Lengths len = graph_lengths(low, node, sh, p);
  const Descriptor* s = band_masks(low, sh, p, len, scaled_scores(low, node, sh, p, len, true));

  const Descriptor& max = low.virtual_tensor(row, f32);
  add_reduction(low, CUDNN_REDUCE_TENSOR_MAX, *s, max, "max");
  const Descriptor& centered =
      pw.op(CUDNN_POINTWISE_SUB, CUDNN_DATA_FLOAT, *s, &max, low.virtual_tensor(scores, f32), "sub");
  const Descriptor& e =
      pw.op(CUDNN_POINTWISE_EXP, CUDNN_DATA_FLOAT, centered, nullptr, low.virtual_tensor(scores, f32), "exp");
  const Descriptor& sum = low.virtual_tensor(row, f32);
  add_reduction(low, CUDNN_REDUCE_TENSOR_ADD, e, sum, "sum");
  // The statistics are always part of the pattern (virtual when the graph does not keep them),
  // as the frontend builds it.
  const Descriptor& log =
      pw.op(CUDNN_POINTWISE_LOG, CUDNN_DATA_FLOAT, sum, nullptr, low.virtual_tensor(row, f32), "log");
  const auto stats = node.output("stats");
  pw.op(CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, max, &log,
        stats ? low.tensor(*stats) : low.virtual_tensor(row, f32), "stats");
  const DataType io = g.tensor(input_uid(node, "q")).dtype;
  const Descriptor& probs =
      pw.op(CUDNN_POINTWISE_DIV, CUDNN_DATA_FLOAT, e, &sum, low.virtual_tensor(scores, io), "div");
  add_matmul(low, probs, low.tensor(input_uid(node, "v")), low.tensor(output_uid(node, "o")),
             {len.q, nullptr, len.kv}, false, "bmm2");
}

// The backward as the frontend builds it for cuDNN 9 (its composite SDPA backward node, read to
// learn): softmax_sum = sum(dO * O) (a device tensor of its own), P = exp(S - stats) recomputed
// with the same masks (padding before the statistics, the band after), dV = P^T . dO,
// dS = (dO . V^T - softmax_sum) * P * scale, dK = dS^T . Q, dQ = dS . K through an fp32
// accumulator (a device tensor of its own) and an identity. Transposes are RESHAPE ops; GQA
// computes per query head and sums the groups with a reduction.
namespace {

void build_sdpa_bwd(Lowering& low, const Node& node) {
  const Graph& g = low.graph();
  const auto& p = node.as<SdpaParams>();
  const SdpaShape sh = sdpa_shape(g, node);
  check_supported(g, node, sh);
  Pw pw{low};
  const DataType f32 = DataType::f32;
  const DataType io = g.tensor(input_uid(node, "q")).dtype;
  const Shape scores = packed({sh.b, sh.h_q, sh.s_q, sh.s_kv});
  const Shape scores_t{{sh.b, sh.h_q, sh.s_kv, sh.s_q},
                       {sh.h_q * sh.s_q * sh.s_kv, sh.s_q * sh.s_kv, 1, sh.s_kv}};
  const Shape row = packed({sh.b, sh.h_q, sh.s_q, 1});

  Lengths len = graph_lengths(low, node, sh, p);
  // cuDNN up to 9.15 needs the padding path when s_kv is not a multiple of 128 (the frontend's
  // workaround): lengths equal to the dims, in device tensors of our own.
  constexpr std::int64_t kKvMultiple = 128;
  if (!len.q && sh.s_kv % kKvMultiple != 0 && cudnnGetVersion() <= 91500) {
    const auto lengths = [&](std::int64_t value) {
      std::vector<std::int32_t> values(static_cast<std::size_t>(sh.b), static_cast<std::int32_t>(value));
      std::vector<std::byte> bytes(values.size() * sizeof(std::int32_t));
      std::memcpy(bytes.data(), values.data(), bytes.size());
      return &low.scratch_tensor(Shape{{sh.b, 1, 1, 1}, {1, 1, 1, 1}}, DataType::i32, std::move(bytes));
    };
    len = {lengths(sh.s_q), lengths(sh.s_kv)};
  }

  // softmax_sum = sum over d of dO * O, kept in a device tensor.
  const Descriptor& d_out = low.tensor(input_uid(node, "do"));
  const Descriptor& o = low.tensor(input_uid(node, "o"));
  const Descriptor& prod = pw.op(CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, d_out, &o,
                                 low.virtual_tensor(packed({sh.b, sh.h_q, sh.s_q, sh.d_v}), f32), "dO*O");
  const Descriptor& dot = low.virtual_tensor(row, f32);
  add_reduction(low, CUDNN_REDUCE_TENSOR_ADD, prod, dot, "sum_dO*O");
  const Descriptor& softmax_sum = low.scratch_tensor(row, f32);
  pw.op(CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, dot, &low.constant(1.0, f32, kRank), softmax_sum,
        "softmax_sum");

  // P = exp(S - stats) with the forward's masks.
  const Descriptor* s = scaled_scores(low, node, sh, p, len, false);
  s = &pw.op(CUDNN_POINTWISE_SUB, CUDNN_DATA_FLOAT, *s, &low.tensor(input_uid(node, "stats")),
             low.virtual_tensor(scores, f32), "sub_stats");
  s = band_masks(low, sh, p, len, s);
  const Descriptor& probs =
      pw.op(CUDNN_POINTWISE_EXP, CUDNN_DATA_FLOAT, *s, nullptr, low.virtual_tensor(scores, f32), "exp");

  // dV = P^T . dO (summed over the query heads of each V head).
  const Descriptor& probs_t = low.virtual_tensor(scores_t, io);
  add_reshape(low, probs, probs_t, "P^T");
  const auto grad = [&](const Descriptor& a, const Descriptor& b, std::string_view out_role,
                        std::int64_t heads, std::int64_t dim, std::string_view label) {
    const Descriptor& out = low.tensor(output_uid(node, out_role));
    if (heads == sh.h_q) {
      add_matmul(low, a, b, out, {len.kv, nullptr, len.q}, false, label);
      return;
    }
    const Descriptor& full = low.virtual_tensor(packed({sh.b, sh.h_q, sh.s_kv, dim}), io);
    add_matmul(low, a, b, full, {len.kv, nullptr, len.q}, false, label);
    add_reduction(low, CUDNN_REDUCE_TENSOR_ADD, full, out, std::string(label) + "_head_sum");
  };
  grad(probs_t, d_out, "dv", sh.h_v, sh.d_v, "bmm_PT_dO");

  // dS = (dO . V^T - softmax_sum) * P * scale.
  const std::int64_t v_uid = input_uid(node, "v");
  const Descriptor& vt = low.tensor(v_uid, transposed(g.tensor(v_uid)));
  const Descriptor& dp = low.virtual_tensor(scores, f32);
  add_matmul(low, d_out, vt, dp, {len.q, len.kv, nullptr}, false, "bmm_dO_VT");
  const Descriptor* ds = &pw.op(CUDNN_POINTWISE_SUB, CUDNN_DATA_FLOAT, dp, &softmax_sum,
                                low.virtual_tensor(scores, f32), "dP-softmax_sum");
  ds = &pw.op(CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, *ds, &probs, low.virtual_tensor(scores, f32), "*P");
  if (p.scale_value || node.input("scale")) {
    const Descriptor& scale =
        node.input("scale") ? low.tensor(input_uid(node, "scale")) : low.constant(*p.scale_value, f32, kRank);
    ds =
        &pw.op(CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, *ds, &scale, low.virtual_tensor(scores, f32), "*scale");
  }

  // dK = dS^T . Q.
  const Descriptor& ds_t = low.virtual_tensor(scores_t, io);
  add_reshape(low, *ds, ds_t, "dS^T");
  grad(ds_t, low.tensor(input_uid(node, "q")), "dk", sh.h_k, sh.d_qk, "bmm_dST_Q");

  // dQ = dS . K, accumulated in fp32, then converted.
  const TensorDesc& k = g.tensor(input_uid(node, "k"));
  const Descriptor& k_plain = low.virtual_tensor(Shape{k.dims, k.strides}, io);
  add_reshape(low, low.tensor(k.uid), k_plain, "K");
  const Descriptor& dq_accum = low.scratch_tensor(packed({sh.b, sh.h_q, sh.s_q, sh.d_qk}), f32);
  add_matmul(low, *ds, k_plain, dq_accum, {len.q, nullptr, len.kv}, false, "bmm_dS_K");
  pw.op(CUDNN_POINTWISE_IDENTITY, CUDNN_DATA_FLOAT, dq_accum, nullptr, low.tensor(output_uid(node, "dq")),
        "dQ");
}

}  // namespace

void lower_sdpa_bwd(Lowering& low, const Node& node) {
  try {
    build_sdpa_bwd(low, node);
  } catch (const Unsupported&) {
    throw;
  } catch (const std::runtime_error& e) {
    // This lowering has not run on a GPU yet (issue 13): cuDNN refusing one of its operations is
    // a skipped row carrying cuDNN's message, not an error row of a provider that otherwise works.
    throw Unsupported(std::string("cuDNN refused dnnbench's attention-backward pattern (lowering not yet "
                                  "verified on a GPU): ") +
                      e.what());
  }
}

}  // namespace dnnbench::cudnn
