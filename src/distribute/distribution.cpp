#include "distribute/distribution.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <numeric>

namespace dnnbench {
namespace {

std::optional<int> parse_int(const std::string& text) {
  int value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::string item;
  for (char c : text + ",") {
    if (c == ',') {
      if (!item.empty()) items.push_back(item);
      item.clear();
    } else if (c != ' ') {
      item += c;
    }
  }
  return items;
}

// The JSON value at `key` of `object`, or null.
const nlohmann::json& field(const nlohmann::json& object, const char* key) {
  static const nlohmann::json null;
  if (!object.is_object()) return null;
  const auto it = object.find(key);
  return it == object.end() ? null : *it;
}

std::string text_of(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

}  // namespace

double estimated_cost(const GraphCost& cost, std::size_t engines) {
  const double work = cost.flops > 0 ? cost.flops : cost.min_bytes;
  return work * static_cast<double>(std::max<std::size_t>(engines, 1));
}

std::vector<std::size_t> cost_order(const std::vector<double>& costs) {
  std::vector<std::size_t> order(costs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
  return order;
}

std::optional<ShardSpec> parse_shard(const std::string& text, std::string& error) {
  const auto slash = text.find('/');
  const auto index = slash == std::string::npos ? std::nullopt : parse_int(text.substr(0, slash));
  const auto count = slash == std::string::npos ? std::nullopt : parse_int(text.substr(slash + 1));
  if (!index || !count || *count < 1 || *index < 1 || *index > *count) {
    error = fmt::format("--shard '{}': expected I/N with 1 <= I <= N, e.g. 2/4", text);
    return std::nullopt;
  }
  return ShardSpec{*index, *count};
}

std::vector<bool> shard_selection(const std::vector<double>& costs, ShardSpec shard) {
  std::vector<double> load(static_cast<std::size_t>(shard.count), 0.0);
  std::vector<bool> selected(costs.size(), false);
  for (const auto i : cost_order(costs)) {
    const auto least = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    // Free entries (errors, duplicates) go round-robin, so that no shard gets all of them.
    load[least] += costs[i] > 0 ? costs[i] : 1e-300;
    selected[i] = static_cast<int>(least) + 1 == shard.index;
  }
  return selected;
}

DeviceChoice choose_device(const DeviceRequest& r) {
  DeviceChoice choice;
  std::vector<std::string> visible;
  if (r.visible) {
    visible = split_list(*r.visible);
  } else {
    for (int d = 0; d < r.device_count; ++d) visible.push_back(std::to_string(d));
  }
  if (visible.empty()) {
    choice.description = r.visible ? "no GPU (CUDA_VISIBLE_DEVICES is empty)" : "no GPU";
    return choice;
  }
  const auto count = static_cast<int>(visible.size());
  if (r.override_index) {
    const auto index = parse_int(*r.override_index);
    if (!index || *index < 0 || *index >= count) {
      choice.error = fmt::format("DNNBENCH_DEVICE={}: expected a GPU index from 0 to {} ({} visible: {})",
                                 *r.override_index, count - 1, count, fmt::join(visible, ","));
      return choice;
    }
    choice.visible_devices = visible[static_cast<std::size_t>(*index)];
    choice.description = fmt::format("GPU {} (DNNBENCH_DEVICE={})", *choice.visible_devices, *index);
    return choice;
  }
  // Counted GPUs are all this host has: more ranks than GPUs must share one. A CUDA_VISIBLE_DEVICES
  // set by the launcher may instead hold one private device per rank (Slurm's --gpus-per-task
  // with cgroups shows each task its own GPU as 0): there, sharing is judged after start, by the
  // devices' PCI bus ids (rank_conflicts).
  if (!r.visible && r.local_size > count && !r.allow_shared) {
    choice.error = fmt::format(
        "{} ranks run on this host but it has {} GPU{}: ranks would share a GPU, and their kernels "
        "would disturb each other's timings. Start at most {} rank{} per host, or give "
        "--allow-shared-device to share anyway",
        r.local_size, count, count == 1 ? "" : "s", count, count == 1 ? "" : "s");
    return choice;
  }
  const auto index = static_cast<std::size_t>(r.local_rank % count);
  choice.visible_devices = visible[index];
  choice.description = fmt::format("GPU {} (local rank {} of {}, {} GPU{} visible)", visible[index],
                                   r.local_rank, r.local_size, count, count == 1 ? "" : "s");
  return choice;
}

int host_gpu_count() {
  std::error_code ec;
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/driver/nvidia/gpus", ec)) {
    (void)entry;
    ++count;
  }
  return count;
}

nlohmann::json RankInfo::to_json() const {
  return {{"rank", rank},
          {"host", host},
          {"pid", pid},
          {"device_choice", device_choice},
          {"providers", providers},
          {"fingerprint", fingerprint},
          {"inputs_digest", inputs_digest}};
}

RankInfo RankInfo::from_json(const nlohmann::json& j) {
  RankInfo info;
  info.rank = j.at("rank").get<int>();
  info.host = j.at("host").get<std::string>();
  info.pid = j.at("pid").get<long>();
  info.device_choice = j.at("device_choice").get<std::string>();
  info.providers = j.at("providers");
  info.fingerprint = j.at("fingerprint");
  info.inputs_digest = j.at("inputs_digest").get<std::string>();
  return info;
}

std::vector<std::string> rank_conflicts(const std::vector<RankInfo>& ranks, bool allow_mixed,
                                        bool allow_shared_device) {
  std::vector<std::string> conflicts;
  if (ranks.empty()) return conflicts;
  const auto& first = ranks.front();
  for (const auto& r : ranks) {
    if (r.inputs_digest != first.inputs_digest)
      conflicts.push_back(fmt::format(
          "rank {} ({}) sees other graph inputs than rank {} ({}): every rank must read the same files",
          r.rank, r.host, first.rank, first.host));
    if (r.fingerprint != first.fingerprint)
      conflicts.push_back(
          fmt::format("rank {} ({}) runs with other options than rank {}", r.rank, r.host, first.rank));
  }
  if (!allow_mixed) {
    // Per provider: the library version, and the device's name, driver and library versions.
    constexpr const char* kDeviceKeys[] = {"device", "compute_capability", "cuda_driver_version",
                                           "cuda_runtime_version", "cudnn_version"};
    for (const auto& r : ranks) {
      if (r.rank == first.rank) continue;
      for (const auto& [name, entry] : first.providers.items()) {
        const auto& other = field(r.providers, name.c_str());
        if (other.is_null()) {
          conflicts.push_back(fmt::format("rank {} ({}) has no provider {}", r.rank, r.host, name));
          continue;
        }
        if (field(other, "version") != field(entry, "version"))
          conflicts.push_back(fmt::format("{} version differs: rank {} ({}) has {}, rank {} ({}) has {}",
                                          name, first.rank, first.host, text_of(field(entry, "version")),
                                          r.rank, r.host, text_of(field(other, "version"))));
        for (const char* key : kDeviceKeys) {
          const auto& mine = field(field(entry, "device"), key);
          const auto& theirs = field(field(other, "device"), key);
          if (mine != theirs)
            conflicts.push_back(fmt::format("{} {} differs: rank {} ({}) has {}, rank {} ({}) has {}", name,
                                            key, first.rank, first.host, text_of(mine), r.rank, r.host,
                                            text_of(theirs)));
        }
      }
    }
  }
  if (!allow_shared_device) {
    // host + PCI bus id -> the first rank on that device
    std::map<std::pair<std::string, std::string>, int> users;
    for (const auto& r : ranks)
      for (const auto& [name, entry] : r.providers.items()) {
        const auto& bus = field(field(entry, "device"), "pci_bus_id");
        if (!bus.is_string()) continue;
        const auto [it, inserted] = users.try_emplace({r.host, bus.get<std::string>()}, r.rank);
        if (!inserted && it->second != r.rank)
          conflicts.push_back(fmt::format(
              "ranks {} and {} both run on GPU {} of host {}: their kernels would disturb each other's "
              "timings. Give each rank its own GPU (at most one rank per GPU; see DNNBENCH_DEVICE in "
              "docs/distributed.md), or --allow-shared-device to share anyway",
              it->second, r.rank, bus.get<std::string>(), r.host));
      }
  }
  return conflicts;
}

}  // namespace dnnbench
