#pragma once
// The memory budget: before anything of a graph is allocated, the host and device bytes it will
// need are estimated and compared with what the run may use (--max-memory, default a safe
// fraction of what is free). A graph over the host budget is refused with the numbers (a graph
// error); a device provider over its budget gets one skipped row; the suite goes on.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "graph/graph.hpp"
#include "providers/provider.hpp"
#include "session/run_options.hpp"

namespace dnnbench {

// What the run may use, and where that number came from (said in the refusal).
struct MemoryAllowance {
  std::int64_t bytes = 0;
  std::string source;  // "--max-memory", "80% of the 20.1 GiB available (MemAvailable)", ...
};

// Host bytes one graph needs at the peak of its run:
//   the seeded inputs (GraphData), the fp64 reference values of every tensor (intermediates
//   included), and per live plan its private input and output copies (PlanBuffers) plus the fp64
//   values of its outputs while they are checked. `live_plans`: 2 with the oracle (paired
//   re-timing holds two plans), else 1.
std::int64_t host_bytes_needed(const Graph& graph, int live_plans);
// Device bytes of a device provider's plans: per live plan a device copy of every input and
// output. The plan's workspace is not known before it is built and is not counted here.
std::int64_t device_bytes_needed(const Graph& graph, int live_plans);
int live_plans(const RunOptions& options);

// MemAvailable of /proc/meminfo in bytes; nullopt when the text has no such line.
std::optional<std::int64_t> parse_mem_available(std::string_view meminfo);
std::optional<std::int64_t> host_memory_available();

// --max-memory when given, else kHostFraction of MemAvailable; nullopt when neither is known
// (then no host budget is applied beyond --max-graph-bytes).
std::optional<MemoryAllowance> host_allowance(const RunOptions& options);
// --max-memory when given, else kDeviceFraction of the provider's free device memory; nullopt
// for host providers and devices that cannot say.
std::optional<MemoryAllowance> device_allowance(const RunOptions& options, Provider& provider);

// "" when the graph fits; else the one-line reason, with needed and allowed bytes.
std::string host_budget_refusal(const Graph& graph, const RunOptions& options);
std::string device_budget_refusal(const Graph& graph, const RunOptions& options, Provider& provider);

}  // namespace dnnbench
