#pragma once
// Run metadata: what made the numbers (tool, host, libraries, environment), for every result.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "providers/provider.hpp"
#include "session/run_options.hpp"
#include "sys/utc_timestamp.hpp"  // utc_timestamp(), with the metadata

namespace dnnbench {

// `argv` is the full command line; provider versions are read from the providers selected.
nlohmann::json collect_metadata(const std::vector<std::string>& argv, const RunOptions& options);
// {name: {version, device?}} of the providers the run selects (every default one when none);
// `device` holds the provider's device_properties() when it has any.
nlohmann::json describe_providers(const RunOptions& options);
// Host facts read from the system: NUMA nodes (/sys/devices/system/node), OS pretty name
// (/etc/os-release); null where unreadable.
nlohmann::json numa_nodes();
nlohmann::json os_pretty_name();
// Environment variables that change library selection or threading, with unset ones as null.
nlohmann::json selection_environment();
// 1, 5 and 15-minute load averages (empty when unreadable).
std::vector<double> load_averages();
// A warning when other work is running on this machine's cores (timings will be noisy and
// multi-threaded libraries stall on descheduled threads); empty when the machine looks idle.
std::string busy_machine_warning();
// The device a provider runs on, as results name it: the GPU's name for device providers
// (device_properties' "device"), the CPU's model name for host providers.
std::string device_name_of(Provider& provider);

}  // namespace dnnbench
