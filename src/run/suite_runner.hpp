#pragma once
// The suite runner: every graph x every selected provider x every engine, in order. A graph
// that fails to load becomes a graph entry with status error; the suite goes on.
#include <string>
#include <vector>

#include "providers/provider.hpp"
#include "report/results.hpp"
#include "run/run_options.hpp"

namespace dnnbench {

// Receives progress; sinks (console, journal) implement it. Default: ignore everything.
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void graph_started(std::size_t /*index*/, std::size_t /*count*/, const std::string& /*path*/) {}
  virtual void row_finished(const GraphResult& /*graph*/, const RowResult& /*row*/) {}
  virtual void graph_finished(const GraphResult& /*graph*/) {}
};

// Throws std::invalid_argument for an unknown provider name (a usage error).
SuiteResult run_suite(const std::vector<std::string>& graph_paths, const RunOptions& options,
                      RunObserver& observer);

// The engines of a provider selected by --engine (ids or names, order kept); every engine
// when the filter is empty. Requested engines the provider does not offer are returned in
// `missing`.
struct EngineSelection {
  std::vector<EngineInfo> engines;
  std::vector<std::string> missing;
};
EngineSelection select_engines(const std::vector<EngineInfo>& offered,
                               const std::vector<std::string>& wanted);

}  // namespace dnnbench
