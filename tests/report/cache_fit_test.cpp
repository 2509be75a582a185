// A row's working set against the last-level cache: hot rows of a quarter to twice the cache are
// cache-sensitive (their figure depends on what the cache holds), cold rows never are, and the run
// notes how many such rows it has.
#include <gtest/gtest.h>

#include "report/noise_model.hpp"
#include "report/results.hpp"

namespace dnnbench {
namespace {

constexpr std::int64_t kMiB = 1 << 20;

TEST(CacheFit, HotRowsBetweenAQuarterAndTwiceTheCacheAreSensitive) {
  const std::int64_t l2 = 50 * kMiB;                      // an H200's L2
  EXPECT_FALSE(cache_sensitive({12 * kMiB, l2}, "hot"));  // under a quarter: stays cached
  EXPECT_TRUE(cache_sensitive({l2 / 4, l2}, "hot"));
  EXPECT_TRUE(cache_sensitive({32 * kMiB, l2}, "hot"));  // a bf16 decode GEMM's weight
  EXPECT_TRUE(cache_sensitive({2 * l2, l2}, "hot"));
  EXPECT_FALSE(cache_sensitive({2 * l2 + 1, l2}, "hot"));  // streams through either way
  EXPECT_FALSE(cache_sensitive({32 * kMiB, l2}, "cold"));  // flushed before every sample
  EXPECT_FALSE(cache_sensitive({32 * kMiB, 0}, "hot"));    // cache size unknown
}

// A producer row counts its kept inputs once and the rest once per set of the rotation.
TEST(CacheFit, ProducerRowsCountTheKeptInputsOnce) {
  const std::int64_t l2 = 50 * kMiB;
  // 40 MiB of which 36 kept: 4 MiB x 3 sets + 36 = 48 MiB, inside the range.
  EXPECT_TRUE(cache_sensitive({40 * kMiB, l2, 3, 36 * kMiB}, "producer"));
  // Counted as rotating (no kept bytes there) it would read 120 MiB, past twice the cache.
  EXPECT_FALSE(cache_sensitive({40 * kMiB, l2, 3}, "rotating"));
  // 26 sets of 4 MiB + 1 MiB kept: past twice the cache.
  EXPECT_FALSE(cache_sensitive({5 * kMiB, l2, 26, kMiB}, "producer"));
}

TEST(CacheFit, RunNoteCountsSensitiveRows) {
  std::vector<GraphResult> graphs(1);
  for (const std::int64_t bytes : {kMiB, 30 * kMiB, 40 * kMiB}) {
    RowResult row;
    row.timing = TimingInfo{};
    row.timing->cache_fit = TimingInfo::CacheFit{bytes, 50 * kMiB};
    graphs[0].results.push_back(row);
  }
  graphs[0].results.push_back(RowResult{});  // a skipped row: no timing
  EXPECT_NE(cache_sensitive_note(graphs).find("2 of 3 hot rows"), std::string::npos);
  for (auto& row : graphs[0].results)
    if (row.timing) row.timing->cache_mode = "cold";
  EXPECT_EQ(cache_sensitive_note(graphs), "");
}

}  // namespace
}  // namespace dnnbench
