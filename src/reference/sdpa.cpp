// Attention, forward and backward, in fp64 (docs/attention.md). Per query row i of head h:
//   s_ij = scale * q_i . k_j + bias_ij for the keys j the masks keep (sdpa_mask.hpp; a boolean
//   attn_mask keeps where true instead of adding),
//   stats_i = logsumexp_j s_ij (cuDNN's softmax statistics: max + log(sum(exp(s - max)))),
//   p_ij = exp(s_ij - stats_i), o_i = sum_j p_ij v_j.
// A row with no kept key gets o = 0 and stats = -inf. K/V head of query head h: h / (h_q / h_k)
// (grouped-query attention). Backward, with stats and o as given:
//   dv_j = sum_i p_ij do_i, dp_ij = do_i . v_j, D_i = do_i . o_i, ds_ij = p_ij (dp_ij - D_i),
//   dq_i = scale * sum_j ds_ij k_j, dk_j = scale * sum_i ds_ij q_i,
// dk and dv summed over the query heads sharing a K/V head.
#include "reference/sdpa.hpp"

#include <cmath>
#include <limits>

#include "reference/node_io.hpp"
#include "tensor/parallel.hpp"

namespace dnnbench {
namespace ref {

SdpaProblem sdpa_problem(const Graph& graph, const Node& node, const Values& values) {
  SdpaProblem pr;
  pr.params = params<SdpaParams>(node);
  pr.shape = sdpa_shape(graph, node);
  const SdpaShape& s = pr.shape;
  if (s.b == 0 || s.h_k == 0 || s.h_v == 0 || s.h_q % s.h_k != 0 || s.h_q % s.h_v != 0)
    fail(node, "q, k and v are not [b, h, s, d] with k/v heads dividing q heads");
  if (pr.params.scale_value)
    pr.scale = *pr.params.scale_value;
  else if (node.input("scale"))
    pr.scale = scalar_input(graph, node, values, "scale");
  pr.seq_q.assign(static_cast<std::size_t>(s.b), s.s_q);
  pr.seq_kv.assign(static_cast<std::size_t>(s.b), s.s_kv);
  if (pr.params.padding_mask) {
    const auto read = [&](std::string_view role, std::vector<std::int64_t>& out, std::int64_t full) {
      const Dense& t = input(graph, node, values, role);
      if (t.size() != s.b) fail(node, std::string(role) + " does not hold one length per batch");
      for (std::int64_t b = 0; b < s.b; ++b)
        out[static_cast<std::size_t>(b)] =
            std::clamp<std::int64_t>(static_cast<std::int64_t>(t.data[static_cast<std::size_t>(b)]), 0, full);
    };
    read("seq_len_q", pr.seq_q, s.s_q);
    read("seq_len_kv", pr.seq_kv, s.s_kv);
  }
  if ((pr.bias = optional_input(graph, node, values, "attn_mask"))) {
    pr.bias_is_keep_mask = graph.tensor(*node.input("attn_mask")).dtype == DataType::boolean;
    pr.bias_of.emplace(pr.bias->dims, std::vector<std::int64_t>{s.b, s.h_q, s.s_q, s.s_kv});
  }
  return pr;
}

}  // namespace ref

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// Row views into C-order [b, h, s, d] values.
struct Rows {
  const double* data;
  std::int64_t heads, seq, dim;
  const double* row(std::int64_t b, std::int64_t h, std::int64_t i) const {
    return data + ((b * heads + h) * seq + i) * dim;
  }
};

double dot(const double* a, const double* b, std::int64_t n) {
  double sum = 0;
  for (std::int64_t e = 0; e < n; ++e) sum += a[e] * b[e];
  return sum;
}

// The scaled, biased scores of row i over its kept keys (kNegInf elsewhere); returns the range.
KeyRange scores(const ref::SdpaProblem& pr, const Rows& q, const Rows& k, std::int64_t b, std::int64_t h,
                std::int64_t i, std::vector<double>& s) {
  const SdpaShape& sh = pr.shape;
  const KeyRange r = sdpa_key_range(pr.params, i, pr.seq_q[static_cast<std::size_t>(b)],
                                    pr.seq_kv[static_cast<std::size_t>(b)]);
  std::fill(s.begin(), s.end(), kNegInf);
  const std::int64_t hk = h / (sh.h_q / sh.h_k);
  for (std::int64_t j = r.begin; j < r.end; ++j) {
    double v = pr.scale * dot(q.row(b, h, i), k.row(b, hk, j), sh.d_qk);
    if (pr.bias) {
      const double m =
          pr.bias
              ->data[static_cast<std::size_t>((*pr.bias_of)(((b * sh.h_q + h) * sh.s_q + i) * sh.s_kv + j))];
      v = pr.bias_is_keep_mask ? (m != 0 ? v : kNegInf) : v + m;
    }
    s[static_cast<std::size_t>(j)] = v;
  }
  return r;
}

void sdpa_forward(const Graph& graph, const Node& node, Values& values) {
  const auto pr = ref::sdpa_problem(graph, node, values);
  const SdpaShape& sh = pr.shape;
  const Rows q{ref::input(graph, node, values, "q").data.data(), sh.h_q, sh.s_q, sh.d_qk};
  const Rows k{ref::input(graph, node, values, "k").data.data(), sh.h_k, sh.s_kv, sh.d_qk};
  const Rows v{ref::input(graph, node, values, "v").data.data(), sh.h_v, sh.s_kv, sh.d_v};
  Dense& o = ref::output(graph, node, values, "o");
  Dense* stats = ref::optional_output(graph, node, values, "stats");
  parallel_for(sh.b * sh.h_q, [&](std::int64_t begin, std::int64_t end) {
    std::vector<double> s(static_cast<std::size_t>(sh.s_kv));
    for (std::int64_t bh = begin; bh < end; ++bh) {
      const std::int64_t b = bh / sh.h_q, h = bh % sh.h_q, hv = h / (sh.h_q / sh.h_v);
      for (std::int64_t i = 0; i < sh.s_q; ++i) {
        const KeyRange r = scores(pr, q, k, b, h, i, s);
        double m = kNegInf;
        for (std::int64_t j = r.begin; j < r.end; ++j) m = std::max(m, s[static_cast<std::size_t>(j)]);
        double* out = o.data.data() + (bh * sh.s_q + i) * sh.d_v;
        double lse = kNegInf;
        if (m != kNegInf) {
          double sum = 0;
          for (std::int64_t j = r.begin; j < r.end; ++j) sum += std::exp(s[static_cast<std::size_t>(j)] - m);
          lse = m + std::log(sum);
          for (std::int64_t j = r.begin; j < r.end; ++j) {
            const double p = std::exp(s[static_cast<std::size_t>(j)] - lse);
            const double* vr = v.row(b, hv, j);
            for (std::int64_t e = 0; e < sh.d_v; ++e) out[e] += p * vr[e];
          }
        }
        if (stats) stats->data[static_cast<std::size_t>(bh * sh.s_q + i)] = lse;
      }
    }
  });
}

void sdpa_backward(const Graph& graph, const Node& node, Values& values) {
  const auto pr = ref::sdpa_problem(graph, node, values);
  const SdpaShape& sh = pr.shape;
  const Rows q{ref::input(graph, node, values, "q").data.data(), sh.h_q, sh.s_q, sh.d_qk};
  const Rows k{ref::input(graph, node, values, "k").data.data(), sh.h_k, sh.s_kv, sh.d_qk};
  const Rows v{ref::input(graph, node, values, "v").data.data(), sh.h_v, sh.s_kv, sh.d_v};
  const Rows o{ref::input(graph, node, values, "o").data.data(), sh.h_q, sh.s_q, sh.d_v};
  const Rows dout{ref::input(graph, node, values, "do").data.data(), sh.h_q, sh.s_q, sh.d_v};
  const Dense& stats = ref::input(graph, node, values, "stats");
  Dense& dq = ref::output(graph, node, values, "dq");
  Dense& dk = ref::output(graph, node, values, "dk");
  Dense& dv = ref::output(graph, node, values, "dv");
  // Per query head partial dk / dv, summed into the shared K/V heads afterwards.
  std::vector<double> dk_h(static_cast<std::size_t>(sh.b * sh.h_q * sh.s_kv * sh.d_qk));
  std::vector<double> dv_h(static_cast<std::size_t>(sh.b * sh.h_q * sh.s_kv * sh.d_v));
  parallel_for(sh.b * sh.h_q, [&](std::int64_t begin, std::int64_t end) {
    std::vector<double> s(static_cast<std::size_t>(sh.s_kv));
    for (std::int64_t bh = begin; bh < end; ++bh) {
      const std::int64_t b = bh / sh.h_q, h = bh % sh.h_q;
      const std::int64_t hk = h / (sh.h_q / sh.h_k), hv = h / (sh.h_q / sh.h_v);
      double* dkp = dk_h.data() + bh * sh.s_kv * sh.d_qk;
      double* dvp = dv_h.data() + bh * sh.s_kv * sh.d_v;
      for (std::int64_t i = 0; i < sh.s_q; ++i) {
        const KeyRange r = scores(pr, q, k, b, h, i, s);
        const double lse = stats.data[static_cast<std::size_t>(bh * sh.s_q + i)];
        const double* doi = dout.row(b, h, i);
        const double di = dot(doi, o.row(b, h, i), sh.d_v);
        double* dqi = dq.data.data() + (bh * sh.s_q + i) * sh.d_qk;
        for (std::int64_t j = r.begin; j < r.end; ++j) {
          const double sj = s[static_cast<std::size_t>(j)];
          if (sj == kNegInf || lse == kNegInf) continue;
          const double p = std::exp(sj - lse);
          const double ds = p * (dot(doi, v.row(b, hv, j), sh.d_v) - di);
          const double* kj = k.row(b, hk, j);
          const double* qi = q.row(b, h, i);
          for (std::int64_t e = 0; e < sh.d_qk; ++e) {
            dqi[e] += pr.scale * ds * kj[e];
            dkp[j * sh.d_qk + e] += pr.scale * ds * qi[e];
          }
          for (std::int64_t e = 0; e < sh.d_v; ++e) dvp[j * sh.d_v + e] += p * doi[e];
        }
      }
    }
  });
  for (std::int64_t b = 0; b < sh.b; ++b)
    for (std::int64_t h = 0; h < sh.h_q; ++h) {
      const std::int64_t hk = h / (sh.h_q / sh.h_k), hv = h / (sh.h_q / sh.h_v);
      const std::int64_t bh = b * sh.h_q + h;
      for (std::int64_t x = 0; x < sh.s_kv * sh.d_qk; ++x)
        dk.data[static_cast<std::size_t>((b * sh.h_k + hk) * sh.s_kv * sh.d_qk + x)] +=
            dk_h[static_cast<std::size_t>(bh * sh.s_kv * sh.d_qk + x)];
      for (std::int64_t x = 0; x < sh.s_kv * sh.d_v; ++x)
        dv.data[static_cast<std::size_t>((b * sh.h_v + hv) * sh.s_kv * sh.d_v + x)] +=
            dv_h[static_cast<std::size_t>(bh * sh.s_kv * sh.d_v + x)];
    }
}

}  // namespace

void reference_sdpa(const Graph& graph, const Node& node, Values& values) {
  if (node.kind == OpKind::sdpa_bwd)
    sdpa_backward(graph, node, values);
  else
    sdpa_forward(graph, node, values);
}

}  // namespace dnnbench
