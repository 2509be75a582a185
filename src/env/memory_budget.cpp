#include "env/memory_budget.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "graph/memory.hpp"

namespace dnnbench {
namespace {

// The share of free memory a run takes by default. The rest is for what the estimate does not
// see: the libraries' own buffers (oneDNN scratchpads and reorders, cuDNN handles and workspaces),
// the process itself, and other programs on the machine.
constexpr double kHostFraction = 0.8;
constexpr double kDeviceFraction = 0.9;

std::string fraction_source(double fraction, std::int64_t free_bytes, std::string_view what) {
  return fmt::format("{:.0f}% of the {} {}; set --max-memory to change it", fraction * 100,
                     describe_bytes(free_bytes), what);
}

std::string refusal(std::string_view what, std::int64_t needed, const std::string& detail,
                    const MemoryAllowance& allowed) {
  return fmt::format("the graph needs {} of {} memory ({}), over the allowed {} ({})", describe_bytes(needed),
                     what, detail, describe_bytes(allowed.bytes), allowed.source);
}

}  // namespace

int live_plans(const RunOptions& options) {
  return options.oracle.enabled ? 2 : 1;
}

std::int64_t host_bytes_needed(const Graph& graph, int live_plans) {
  const auto bytes = graph_tensor_bytes(graph);
  const std::int64_t per_plan = saturating_add(bytes.storage(), bytes.output_values);
  return saturating_add(saturating_add(bytes.inputs, bytes.reference), saturating_mul(per_plan, live_plans));
}

std::int64_t device_bytes_needed(const Graph& graph, int live_plans) {
  return saturating_mul(graph_tensor_bytes(graph).storage(), live_plans);
}

std::optional<std::int64_t> parse_mem_available(std::string_view meminfo) {
  std::istringstream in{std::string(meminfo)};
  std::string key, unit;
  std::int64_t value = 0;
  while (in >> key >> value) {
    std::getline(in, unit);
    if (key != "MemAvailable:") continue;
    // The kernel writes "kB" and means KiB.
    if (unit.find("kB") == std::string::npos || value < 0) return std::nullopt;
    return saturating_mul(value, 1024);
  }
  return std::nullopt;
}

std::optional<std::int64_t> host_memory_available() {
  std::ifstream in("/proc/meminfo");
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return parse_mem_available(text.str());
}

std::optional<MemoryAllowance> host_allowance(const RunOptions& options) {
  if (options.max_memory) return MemoryAllowance{*options.max_memory, "--max-memory"};
  const auto available = host_memory_available();
  if (!available) return std::nullopt;
  return MemoryAllowance{static_cast<std::int64_t>(static_cast<double>(*available) * kHostFraction),
                         fraction_source(kHostFraction, *available, "available on the host (MemAvailable)")};
}

std::optional<MemoryAllowance> device_allowance(const RunOptions& options, Provider& provider) {
  if (provider.device() == DeviceKind::host) return std::nullopt;
  if (options.max_memory) return MemoryAllowance{*options.max_memory, "--max-memory"};
  const auto free_bytes = provider.device_memory_free();
  if (!free_bytes) return std::nullopt;
  return MemoryAllowance{static_cast<std::int64_t>(static_cast<double>(*free_bytes) * kDeviceFraction),
                         fraction_source(kDeviceFraction, *free_bytes, "free on the device")};
}

std::string host_budget_refusal(const Graph& graph, const RunOptions& options) {
  const auto allowed = host_allowance(options);
  const int plans = live_plans(options);
  const std::int64_t needed = host_bytes_needed(graph, plans);
  if (!allowed || needed <= allowed->bytes) return "";
  const auto bytes = graph_tensor_bytes(graph);
  return refusal(
      "host", needed,
      fmt::format("inputs {}, fp64 reference of every tensor {}, {} plan cop{} of inputs and outputs "
                  "{} each, fp64 outputs checked {} each",
                  describe_bytes(bytes.inputs), describe_bytes(bytes.reference), plans,
                  plans == 1 ? "y" : "ies", describe_bytes(bytes.storage()),
                  describe_bytes(bytes.output_values)),
      *allowed);
}

std::string device_budget_refusal(const Graph& graph, const RunOptions& options, Provider& provider) {
  const auto allowed = device_allowance(options, provider);
  const int plans = live_plans(options);
  const std::int64_t needed = device_bytes_needed(graph, plans);
  if (!allowed || needed <= allowed->bytes) return "";
  return refusal("device", needed,
                 fmt::format("{} plan cop{} of inputs and outputs, {} each, before the workspace", plans,
                             plans == 1 ? "y" : "ies", describe_bytes(graph_tensor_bytes(graph).storage())),
                 *allowed);
}

}  // namespace dnnbench
