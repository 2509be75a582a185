#pragma once
// Splitting one suite over several processes (docs/distributed.md): the cost order graphs are
// handed out in, the deterministic --shard split, which GPU each MPI rank uses, and the checks
// that the ranks of one run measure on the same kind of device with the same libraries. Pure
// logic: the MPI protocol is in distribute/distributed_run.hpp.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "graph/cost.hpp"

namespace dnnbench {

// How much work a graph is, for ordering only: its FLOPs (its minimum bytes when it has none:
// normalizations, pointwise ops), times the engines that will run it. Graphs that are not run
// (errors, duplicates) cost 0.
double estimated_cost(const GraphCost& cost, std::size_t engines);

// Indices of `costs`, largest first; equal costs keep their input order.
std::vector<std::size_t> cost_order(const std::vector<double>& costs);

// --shard I/N: 1 <= index <= count.
struct ShardSpec {
  int index = 1, count = 1;
};
// "2/4" -> {2, 4}; nullopt with `error` set for anything else.
std::optional<ShardSpec> parse_shard(const std::string& text, std::string& error);
// Which inputs shard `shard` runs: graphs in cost order, each to the shard with the least cost so
// far (the lowest-numbered on a tie), so that every shard gets about the same work. The same
// costs always give the same split, so N independent processes agree without talking.
std::vector<bool> shard_selection(const std::vector<double>& costs, ShardSpec shard);

// Which GPU an MPI rank uses. `visible`: CUDA_VISIBLE_DEVICES as the launcher set it (nullopt when
// unset); `device_count`: GPUs on the host (used when `visible` is unset); `override_index`:
// DNNBENCH_DEVICE, an index into the visible devices, which wins over the local rank.
struct DeviceRequest {
  int local_rank = 0, local_size = 1;
  std::optional<std::string> visible;
  int device_count = 0;
  std::optional<std::string> override_index;
  bool allow_shared = false;  // --allow-shared-device
};
struct DeviceChoice {
  // The value to give CUDA_VISIBLE_DEVICES before any library starts (nullopt: leave it as it is:
  // no GPU, or nothing to choose); `error`: the rank must not run (a usage error).
  std::optional<std::string> visible_devices;
  std::string description;  // "GPU 1 of 2 (local rank 1)", for the metadata
  std::string error;
};
DeviceChoice choose_device(const DeviceRequest& request);
// GPUs this host has, counted without starting CUDA (which would fix the visible devices before
// choose_device sets them): the driver's /proc/driver/nvidia/gpus entries; 0 when there are none.
int host_gpu_count();

// What each rank says about itself at start (rank 0 gathers them into the metadata).
struct RankInfo {
  int rank = 0;
  std::string host;
  long pid = 0;                // to find the process of a rank (a hang, a post-mortem)
  std::string device_choice;   // DeviceChoice::description
  nlohmann::json providers;    // describe_providers(): versions and devices
  nlohmann::json fingerprint;  // options_fingerprint()
  std::string inputs_digest;   // content_hash of the expanded input paths
  nlohmann::json to_json() const;
  static RankInfo from_json(const nlohmann::json& j);
};
// Why these ranks cannot be one run, one line each: options or inputs that differ (always
// refused); provider versions, device names or driver versions that differ (refused unless
// `allow_mixed`); two ranks of one host on the same GPU (refused unless `allow_shared_device`).
std::vector<std::string> rank_conflicts(const std::vector<RankInfo>& ranks, bool allow_mixed,
                                        bool allow_shared_device);

}  // namespace dnnbench
