#include "env/gpu_clocks.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace dnnbench {

ClockSource* gpu_clock_source(Provider& provider) {
  if (provider.device() == DeviceKind::host) return nullptr;
  std::string bus_id;
  for (const auto& [key, value] : provider.device_properties())
    if (key == "pci_bus_id") bus_id = value;
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<ClockSource>> opened;  // null entries: tried, absent
  std::lock_guard lock(mutex);
  auto [it, inserted] = opened.try_emplace(bus_id);
  if (inserted) it->second = open_nvml_clock_source(bus_id);
  return it->second.get();
}

}  // namespace dnnbench
