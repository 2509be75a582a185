#pragma once
// The suite runner: every graph x every selected provider x every engine, in order. A graph
// that fails to load becomes a graph entry with status error; the suite goes on.
#include <string>
#include <vector>

#include "providers/provider.hpp"
#include "report/results.hpp"
#include "run/inputs.hpp"
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

// Throws std::invalid_argument for an unknown provider name (a usage error). Inputs become
// graph entries in order; see run/graph_loader.hpp for those that are not run.
SuiteResult run_suite(const std::vector<GraphInput>& inputs, const RunOptions& options,
                      RunObserver& observer);

// The engines of a provider selected by --engine (ids or names, order kept); every engine
// when the filter is empty. Requested engines the provider does not offer are returned in
// `missing`.
struct EngineSelection {
  std::vector<EngineInfo> engines;
  std::vector<std::string> missing;
};
// Engines named in `skipped` (ids or names, --skip-engine) are left out either way.
EngineSelection select_engines(const std::vector<EngineInfo>& offered, const std::vector<std::string>& wanted,
                               const std::vector<std::string>& skipped = {});

// The engines a provider should run: its lines of the recipe's [[engines]] matrix when it has
// any (with their labels), else --engine.
struct WantedEngines {
  std::vector<std::string> ids;
  std::vector<std::optional<std::string>> labels;  // parallel to ids; empty for --engine
  std::optional<std::string> label_of(const EngineInfo& engine) const;
};
WantedEngines wanted_engines(const RunOptions& options, std::string_view provider);

}  // namespace dnnbench
