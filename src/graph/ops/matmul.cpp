// Matmul: a [..., M, K] x b [..., K, N] -> c [..., M, N], batch dims broadcast numpy-style.
#include <algorithm>

#include "graph/ops/common.hpp"

namespace dnnbench {
namespace {

std::vector<std::int64_t> batch_dims(const TensorDesc& t) {
  return std::vector<std::int64_t>(t.dims.begin(), t.dims.end() - 2);
}

// Right-aligned view of `dims` padded with leading 1s to `rank`.
std::vector<std::int64_t> pad_left(const std::vector<std::int64_t>& dims, std::size_t rank) {
  std::vector<std::int64_t> out(rank - dims.size(), 1);
  out.insert(out.end(), dims.begin(), dims.end());
  return out;
}

void parse_matmul(const nlohmann::json&, Node& node, const NodeContext&) {
  node.params = MatmulParams{};
}

void validate_matmul(const Graph& graph, Node& node, const NodeContext& where) {
  const TensorDesc& a = input_tensor(graph, node, where, "a");
  const TensorDesc& b = input_tensor(graph, node, where, "b");
  const TensorDesc& c = output_tensor(graph, node, where, "c");
  const auto check_matrix_rank = [&](const TensorDesc& t, const std::string& path, std::string_view role) {
    if (t.dims.size() < 2)
      node_error(where, path,
                 std::string(role) + " \"" + t.name + "\" has rank " + std::to_string(t.dims.size()) +
                     "; expected rank >= 2 ([..., rows, columns])");
  };
  check_matrix_rank(a, port_path("inputs", "a"), "a");
  check_matrix_rank(b, port_path("inputs", "b"), "b");
  check_matrix_rank(c, port_path("outputs", "c"), "c");

  const std::int64_t m = a.dims[a.dims.size() - 2], k = a.dims.back();
  const std::int64_t kb = b.dims[b.dims.size() - 2], n = b.dims.back();
  if (k != kb)
    node_error(where, port_path("inputs", "b"),
               "inner dimensions differ: a \"" + a.name + "\" is [..., M=" + std::to_string(m) + ", K=" +
                   std::to_string(k) + "] but b \"" + b.name + "\" is [..., K=" + std::to_string(kb) +
                   ", N=" + std::to_string(n) + "]; expected b's second-to-last dim to equal a's last dim");

  const auto a_batch = batch_dims(a), b_batch = batch_dims(b), c_batch = batch_dims(c);
  const std::size_t rank = std::max({a_batch.size(), b_batch.size(), c_batch.size()});
  const auto pa = pad_left(a_batch, rank), pb = pad_left(b_batch, rank), pc = pad_left(c_batch, rank);
  std::vector<std::int64_t> expected_batch(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    if (pa[d] != pb[d] && pa[d] != 1 && pb[d] != 1)
      node_error(where, port_path("inputs", "b"),
                 "batch dimensions of a " + dims_string(a.dims) + " and b " + dims_string(b.dims) +
                     " do not broadcast (aligned from the right, each pair must be equal or contain a 1)");
    expected_batch[d] = std::max(pa[d], pb[d]);
  }
  if (pc != expected_batch) {
    auto expected = expected_batch;
    // Show c's expectation at c's own rank when it can hold the broadcast batch.
    while (expected.size() > c_batch.size() && expected.front() == 1) expected.erase(expected.begin());
    expected.push_back(m);
    expected.push_back(n);
    check_dims_equal(c, expected, where, port_path("outputs", "c"), "c",
                     "batch dims broadcast from a and b, then [M, N]");
  }
  if (c.dims[c.dims.size() - 2] != m || c.dims.back() != n) {
    auto expected = c_batch;
    expected.push_back(m);
    expected.push_back(n);
    check_dims_equal(c, expected, where, port_path("outputs", "c"), "c",
                     "[..., M, N] from a [..., M, K] and b [..., K, N]");
  }
}

NodeCost cost_matmul(const Graph& graph, const Node& node) {
  const TensorDesc* a = optional_input(graph, node, "a");
  const TensorDesc* c = optional_output(graph, node, "c");
  if (!a || !c || a->dims.size() < 2 || c->dims.size() < 2) return {};
  const std::int64_t k = a->dims.back();
  NodeCost cost;
  cost.flops = 2.0 * product_f(c->dims) * static_cast<double>(k);  // batch * M * N outputs, K MACs each
  cost.reduction_length = k;
  return cost;
}

}  // namespace

const OpRules kMatmulRules{"MatmulAttributes", OpKind::matmul, parse_matmul,
                           validate_matmul,    cost_matmul,    {}};

}  // namespace dnnbench
