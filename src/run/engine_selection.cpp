#include "run/engine_selection.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "session/output_judge.hpp"

namespace dnnbench {

std::string not_offered_reason(const std::string& engine, const std::string& provider_says) {
  const auto reason = fmt::format("engine '{}' is not offered for this graph", engine);
  return provider_says.empty() ? reason : reason + ": " + provider_says;
}

bool is_not_offered(const std::string& skip_reason, const std::string& engine) {
  return skip_reason.starts_with(not_offered_reason(engine));
}

WantedEngines wanted_engines(const RunOptions& options, std::string_view provider) {
  WantedEngines wanted;
  for (const auto& choice : options.engine_matrix)
    if (choice.provider == provider) {
      wanted.ids.push_back(choice.id);
      wanted.labels.push_back(choice.label);
    }
  if (wanted.ids.empty()) wanted.ids = options.engines;
  return wanted;
}

RowEngines row_engines(const std::vector<EngineInfo>& offered, const RunOptions& options,
                       std::string_view provider, const std::optional<std::string>& content_hash) {
  RowEngines rows;
  rows.wanted = wanted_engines(options, provider);
  // --plans-from without --engine: the engines the tuning file stores for this graph.
  if (options.plans_from && rows.wanted.ids.empty() && content_hash)
    rows.wanted.ids = options.plans_from->engines_for(*content_hash, std::string(provider));
  rows.selection = select_engines(offered, rows.wanted.ids, options.skip_engines);
  // --fp32-math strict: engines that round fp32 inputs to TF32 are listed, not run, and do not
  // count against --max-engines (its top N are N engines that compute what the graph asks).
  for (auto& e : take_refused_by_fp32_math(rows.selection.engines, options.fp32_math))
    rows.refused.push_back(
        {std::move(e),
         "the engine computes fp32 data in TF32 (its inputs rounded to a 10-bit mantissa); "
         "--fp32-math strict (the default) runs only fp32 arithmetic: --fp32-math tf32 "
         "runs it"});
  for (auto& e : take_refused_by_reduced_precision(rows.selection.engines, options.reduced_precision))
    rows.refused.push_back({std::move(e),
                            "the engine accumulates in a reduced precision (REDUCED_PRECISION_REDUCTION); "
                            "--reduced-precision skip: --reduced-precision allow runs it, judged on the "
                            "normalized error"});
  if (options.max_engines > 0 &&
      rows.selection.engines.size() > static_cast<std::size_t>(options.max_engines))
    rows.selection.engines.resize(static_cast<std::size_t>(options.max_engines));
  return rows;
}

std::optional<std::string> WantedEngines::label_of(const EngineInfo& engine) const {
  for (std::size_t k = 0; k < ids.size() && k < labels.size(); ++k)
    if (labels[k] && (ids[k] == engine.id || ids[k] == engine.name)) return labels[k];
  return std::nullopt;
}

namespace {

// Removes the engines `refuse` is true of from `engines` (order kept) and returns them.
template <typename Predicate>
std::vector<EngineInfo> take_engines_where(std::vector<EngineInfo>& engines, Predicate refuse) {
  const auto taken =
      std::stable_partition(engines.begin(), engines.end(), [&](const EngineInfo& e) { return !refuse(e); });
  std::vector<EngineInfo> refused(taken, engines.end());
  engines.erase(taken, engines.end());
  return refused;
}

}  // namespace

std::vector<EngineInfo> take_refused_by_fp32_math(std::vector<EngineInfo>& engines, Fp32Math math) {
  if (math != Fp32Math::strict) return {};
  return take_engines_where(engines, uses_tf32_math);
}

std::vector<EngineInfo> take_refused_by_reduced_precision(std::vector<EngineInfo>& engines,
                                                          ReducedPrecision policy) {
  if (policy != ReducedPrecision::skip) return {};
  return take_engines_where(engines, uses_reduced_precision);
}

EngineSelection select_engines(const std::vector<EngineInfo>& offered, const std::vector<std::string>& wanted,
                               const std::vector<std::string>& skipped) {
  EngineSelection selection;
  const auto is_skipped = [&](const EngineInfo& e) {
    return std::any_of(skipped.begin(), skipped.end(),
                       [&](const std::string& s) { return s == e.id || s == e.name; });
  };
  if (wanted.empty()) {
    for (const auto& e : offered)
      if (!is_skipped(e)) selection.engines.push_back(e);
    return selection;
  }
  for (const auto& w : wanted) {
    bool found = false;
    for (const auto& e : offered)
      if (e.id == w || e.name == w) {
        found = true;
        if (is_skipped(e)) continue;
        const bool already = std::any_of(selection.engines.begin(), selection.engines.end(),
                                         [&](const EngineInfo& s) { return s.id == e.id; });
        if (!already) selection.engines.push_back(e);
      }
    if (!found) selection.missing.push_back(w);
  }
  return selection;
}

}  // namespace dnnbench
