// Matmul: c[..., M, N] = a[..., M, K] x b[..., K, N] with numpy-style broadcasting of the batch
// dims. Rows of c are computed in blocks of kRowBlock so every row of b that is loaded feeds
// several rows of c; the innermost loop runs contiguously along N.
#include <algorithm>
#include <string>
#include <vector>

#include "reference/broadcast.hpp"
#include "reference/node_io.hpp"
#include "reference/reference.hpp"
#include "tensor/parallel.hpp"

namespace dnnbench {
namespace {

// Rows of c sharing each loaded row of b (the kernel below is written out for four).
constexpr std::int64_t kRowBlock = 4;
// Columns of c per pass, so a block of c rows (kRowBlock x kColumnTile doubles, 16 KiB) stays in L1.
constexpr std::int64_t kColumnTile = 512;

std::vector<std::int64_t> batch_dims(const std::vector<std::int64_t>& dims) {
  return {dims.begin(), dims.end() - 2};
}

}  // namespace

void reference_matmul(const Graph& graph, const Node& node, Values& values) {
  const Dense& a = ref::input(graph, node, values, "a");
  const Dense& b = ref::input(graph, node, values, "b");
  Dense& c = ref::output(graph, node, values, "c");
  if (a.rank() < 2 || b.rank() < 2 || c.rank() < 2)
    ref::fail(node, "matmul needs a, b and c of rank 2 or more");
  const std::int64_t m = a.dims[a.rank() - 2], k = a.dims[a.rank() - 1], n = b.dims[b.rank() - 1];
  if (b.dims[b.rank() - 2] != k)
    ref::fail(node, "inner dims differ: a has K=" + std::to_string(k) +
                        ", b has K=" + std::to_string(b.dims[b.rank() - 2]));
  if (c.dims[c.rank() - 2] != m || c.dims[c.rank() - 1] != n)
    ref::fail(node, "c is not [..., " + std::to_string(m) + ", " + std::to_string(n) + "]");
  const auto c_batch = batch_dims(c.dims);
  const auto a_batch = batch_dims(a.dims), b_batch = batch_dims(b.dims);
  if (!ref::broadcastable(a_batch, c_batch) || !ref::broadcastable(b_batch, c_batch))
    ref::fail(node, "batch dims of a and b do not broadcast to c's");
  const ref::BroadcastMap a_of(a_batch, c_batch), b_of(b_batch, c_batch);

  const std::int64_t batches = product(c_batch), row_blocks = (m + kRowBlock - 1) / kRowBlock;
  parallel_for(batches * row_blocks, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t task = begin; task < end; ++task) {
      const std::int64_t batch = task / row_blocks, m0 = task % row_blocks * kRowBlock;
      const std::int64_t rows = std::min(kRowBlock, m - m0);
      const double* a_rows = a.data.data() + (a_of(batch) * m + m0) * k;
      const double* b_mat = b.data.data() + b_of(batch) * k * n;
      double* c_rows = c.data.data() + (batch * m + m0) * n;
      for (std::int64_t n0 = 0; n0 < n; n0 += kColumnTile) {
        const std::int64_t cols = std::min(kColumnTile, n - n0);
        for (std::int64_t kk = 0; kk < k; ++kk) {
          const double* __restrict b_row = b_mat + kk * n + n0;
          if (rows == kRowBlock) {
            // Each b element loaded feeds kRowBlock FMAs.
            double* __restrict c0 = c_rows + n0;
            double* __restrict c1 = c0 + n;
            double* __restrict c2 = c1 + n;
            double* __restrict c3 = c2 + n;
            const double a0 = a_rows[kk], a1 = a_rows[k + kk], a2 = a_rows[2 * k + kk],
                         a3 = a_rows[3 * k + kk];
            for (std::int64_t j = 0; j < cols; ++j) {
              const double bv = b_row[j];
              c0[j] += a0 * bv;
              c1[j] += a1 * bv;
              c2[j] += a2 * bv;
              c3[j] += a3 * bv;
            }
            continue;
          }
          for (std::int64_t r = 0; r < rows; ++r) {
            const double av = a_rows[r * k + kk];
            double* __restrict c_row = c_rows + r * n + n0;
            for (std::int64_t j = 0; j < cols; ++j) c_row[j] += av * b_row[j];
          }
        }
      }
    }
  });
}

}  // namespace dnnbench
