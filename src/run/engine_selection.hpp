#pragma once
// Which engines of a provider a graph's rows run, and which it lists as skipped rows instead:
// --engine / the recipe's engine matrix / --plans-from, --skip-engine, the fp32-math and
// reduced-precision policies, --max-engines.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "providers/provider.hpp"
#include "session/run_options.hpp"

namespace dnnbench {

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

// --fp32-math strict: removes the engines that compute fp32 data in TF32 from `engines` (order
// kept) and returns them, to be listed as skipped rows; tf32: removes none.
std::vector<EngineInfo> take_refused_by_fp32_math(std::vector<EngineInfo>& engines, Fp32Math math);
// --reduced-precision skip: the same for engines that accumulate in a reduced precision.
std::vector<EngineInfo> take_refused_by_reduced_precision(std::vector<EngineInfo>& engines,
                                                          ReducedPrecision policy);

// An engine a policy option lists as a skipped row instead of running it, and why.
struct RefusedEngine {
  EngineInfo engine;
  std::string reason;
};

// The engines a provider should run: its lines of the recipe's [[engines]] matrix when it has
// any (with their labels), else --engine.
struct WantedEngines {
  std::vector<std::string> ids;
  std::vector<std::optional<std::string>> labels;  // parallel to ids; empty for --engine
  std::optional<std::string> label_of(const EngineInfo& engine) const;
};
WantedEngines wanted_engines(const RunOptions& options, std::string_view provider);

// The rows one provider gives a graph: the engines to run (--engine / --engine-matrix /
// --plans-from, less --skip-engine and the policies' refusals, cut to --max-engines), the
// engines --fp32-math strict and --reduced-precision skip list as skipped rows, and the wanted
// engines it does not offer.
struct RowEngines {
  WantedEngines wanted;
  EngineSelection selection;
  std::vector<RefusedEngine> refused;
};
RowEngines row_engines(const std::vector<EngineInfo>& offered, const RunOptions& options,
                       std::string_view provider, const std::optional<std::string>& content_hash);

// The skip reason of a row for an engine the provider does not offer, with the provider's own
// reason where it gives one (Provider::not_offered_reason).
std::string not_offered_reason(const std::string& engine, const std::string& provider_says = "");
// Whether a row's skip reason is that one.
bool is_not_offered(const std::string& skip_reason, const std::string& engine);

}  // namespace dnnbench
