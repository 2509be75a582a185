// The pure logic of distributed runs: cost order, --shard split, rank-to-GPU mapping, and the
// checks that refuse ranks that cannot be one run.
#include "distribute/distribution.hpp"

#include <gtest/gtest.h>

#include <numeric>

namespace dnnbench {
namespace {

TEST(Distribution, CostOrderIsLargestFirstAndStable) {
  EXPECT_EQ(cost_order({1, 5, 3, 5, 0}), (std::vector<std::size_t>{1, 3, 2, 0, 4}));
  EXPECT_TRUE(cost_order({}).empty());
}

TEST(Distribution, EstimatedCostUsesFlopsElseBytesTimesEngines) {
  GraphCost conv{100, 40, 1};
  GraphCost pointwise{0, 64, 1};
  EXPECT_DOUBLE_EQ(estimated_cost(conv, 3), 300);
  EXPECT_DOUBLE_EQ(estimated_cost(pointwise, 2), 128);
  EXPECT_DOUBLE_EQ(estimated_cost(conv, 0), 100);  // a graph no engine offers still has its cost
}

TEST(Distribution, ParseShard) {
  std::string error;
  const auto s = parse_shard("2/4", error);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->index, 2);
  EXPECT_EQ(s->count, 4);
  for (const char* bad : {"0/4", "5/4", "2", "a/b", "2/0", "/4", "2/", "1/4x", "-1/4"}) {
    error.clear();
    EXPECT_FALSE(parse_shard(bad, error)) << bad;
    EXPECT_NE(error.find("I/N"), std::string::npos) << bad;
  }
}

TEST(Distribution, ShardsPartitionTheSuiteAndBalanceCost) {
  std::vector<double> costs;
  for (int i = 0; i < 37; ++i) costs.push_back(i % 5 == 0 ? 0.0 : static_cast<double>((i * 7919) % 101 + 1));
  const int n = 4;
  std::vector<int> owner(costs.size(), 0);
  std::vector<double> load(n, 0);
  for (int s = 1; s <= n; ++s) {
    const auto selected = shard_selection(costs, {s, n});
    ASSERT_EQ(selected.size(), costs.size());
    for (std::size_t i = 0; i < costs.size(); ++i)
      if (selected[i]) {
        ++owner[i];
        load[static_cast<std::size_t>(s - 1)] += costs[i];
      }
    EXPECT_EQ(selected, shard_selection(costs, {s, n})) << "the split is deterministic";
  }
  for (std::size_t i = 0; i < costs.size(); ++i) EXPECT_EQ(owner[i], 1) << "input " << i << " in one shard";
  const double total = std::accumulate(costs.begin(), costs.end(), 0.0);
  for (double l : load) EXPECT_NEAR(l, total / n, 101.0) << "greedy balance is within one graph's cost";
}

TEST(Distribution, ShardsSpreadFreeEntries) {
  // Errors and duplicates cost nothing, yet should not all land on shard 1.
  const std::vector<double> costs(6, 0.0);
  for (int s = 1; s <= 3; ++s) {
    const auto selected = shard_selection(costs, {s, 3});
    EXPECT_EQ(std::count(selected.begin(), selected.end(), true), 2) << s;
  }
}

TEST(Distribution, DeviceByLocalRankOverCountedGpus) {
  for (int local = 0; local < 4; ++local) {
    const auto c = choose_device({local, 4, std::nullopt, 4, std::nullopt, false});
    EXPECT_TRUE(c.error.empty());
    EXPECT_EQ(c.visible_devices, std::to_string(local));
  }
}

TEST(Distribution, MoreRanksThanGpusIsRefusedUnlessShared) {
  const auto refused = choose_device({1, 2, std::nullopt, 1, std::nullopt, false});
  EXPECT_FALSE(refused.visible_devices);
  EXPECT_NE(refused.error.find("2 ranks run on this host but it has 1 GPU"), std::string::npos)
      << refused.error;
  EXPECT_NE(refused.error.find("--allow-shared-device"), std::string::npos);
  const auto shared = choose_device({1, 2, std::nullopt, 1, std::nullopt, true});
  EXPECT_TRUE(shared.error.empty());
  EXPECT_EQ(shared.visible_devices, "0");
}

TEST(Distribution, DeviceFromTheLaunchersVisibleList) {
  const auto c = choose_device({1, 2, std::string("2,3"), 8, std::nullopt, false});
  EXPECT_EQ(c.visible_devices, "3");
  // One private GPU per task (Slurm with cgroups): not refused here; PCI bus ids decide later.
  const auto one = choose_device({3, 4, std::string("0"), 8, std::nullopt, false});
  EXPECT_TRUE(one.error.empty());
  EXPECT_EQ(one.visible_devices, "0");
  const auto uuid = choose_device({0, 1, std::string("GPU-aaaa, GPU-bbbb"), 0, std::nullopt, false});
  EXPECT_EQ(uuid.visible_devices, "GPU-aaaa");
}

TEST(Distribution, DeviceOverrideByEnvironment) {
  const auto c = choose_device({0, 2, std::nullopt, 4, std::string("3"), false});
  EXPECT_EQ(c.visible_devices, "3");
  EXPECT_NE(c.description.find("DNNBENCH_DEVICE=3"), std::string::npos);
  const auto bad = choose_device({0, 2, std::nullopt, 2, std::string("2"), false});
  EXPECT_FALSE(bad.visible_devices);
  EXPECT_NE(bad.error.find("DNNBENCH_DEVICE=2"), std::string::npos);
  EXPECT_FALSE(choose_device({0, 1, std::nullopt, 2, std::string("x"), false}).error.empty());
}

TEST(Distribution, NoGpuNoChoice) {
  const auto c = choose_device({2, 3, std::nullopt, 0, std::nullopt, false});
  EXPECT_FALSE(c.visible_devices);
  EXPECT_TRUE(c.error.empty());
}

RankInfo rank_on(int rank, const std::string& host, const std::string& bus, const std::string& version) {
  RankInfo r;
  r.rank = rank;
  r.host = host;
  r.providers = {
      {"cudnn", {{"version", version}, {"device", {{"device", "NVIDIA H200"}, {"pci_bus_id", bus}}}}}};
  r.fingerprint = {{"seed", 42}};
  r.inputs_digest = "fnv1a64:1";
  return r;
}

TEST(Distribution, RanksThatMatchRunTogether) {
  EXPECT_TRUE(rank_conflicts({rank_on(0, "a", "0:1", "9.1"), rank_on(1, "a", "0:2", "9.1"),
                              rank_on(2, "b", "0:1", "9.1")},
                             false, false)
                  .empty());
}

TEST(Distribution, VersionMismatchRefusedUnlessAllowed) {
  const std::vector<RankInfo> ranks{rank_on(0, "a", "0:1", "9.1"), rank_on(1, "b", "0:1", "9.2")};
  const auto conflicts = rank_conflicts(ranks, false, false);
  ASSERT_EQ(conflicts.size(), 1u);
  EXPECT_NE(conflicts[0].find("cudnn version differs"), std::string::npos) << conflicts[0];
  EXPECT_TRUE(rank_conflicts(ranks, true, false).empty());
}

TEST(Distribution, DeviceNameMismatchRefused) {
  auto other = rank_on(1, "b", "0:1", "9.1");
  other.providers["cudnn"]["device"]["device"] = "NVIDIA H100";
  const auto conflicts = rank_conflicts({rank_on(0, "a", "0:1", "9.1"), other}, false, false);
  ASSERT_EQ(conflicts.size(), 1u);
  EXPECT_NE(conflicts[0].find("cudnn device differs"), std::string::npos) << conflicts[0];
}

TEST(Distribution, SharedGpuRefusedUnlessAllowed) {
  const std::vector<RankInfo> ranks{rank_on(0, "a", "0:1", "9.1"), rank_on(1, "a", "0:1", "9.1")};
  const auto conflicts = rank_conflicts(ranks, false, false);
  ASSERT_EQ(conflicts.size(), 1u);
  EXPECT_NE(conflicts[0].find("ranks 0 and 1 both run on GPU 0:1 of host a"), std::string::npos)
      << conflicts[0];
  EXPECT_TRUE(rank_conflicts(ranks, false, true).empty());
}

TEST(Distribution, OptionsAndInputsMustMatchAlways) {
  auto other = rank_on(1, "b", "0:1", "9.1");
  other.fingerprint = {{"seed", 7}};
  other.inputs_digest = "fnv1a64:2";
  const auto conflicts = rank_conflicts({rank_on(0, "a", "0:1", "9.1"), other}, true, true);
  EXPECT_EQ(conflicts.size(), 2u);
}

TEST(Distribution, RankInfoRoundTrip) {
  const auto r = rank_on(3, "node7", "0:9", "9.1");
  const auto back = RankInfo::from_json(r.to_json());
  EXPECT_EQ(back.rank, 3);
  EXPECT_EQ(back.host, "node7");
  EXPECT_EQ(back.providers, r.providers);
}

}  // namespace
}  // namespace dnnbench
