#include "env/run_record.hpp"

#include "report/results.hpp"

namespace dnnbench {
namespace {

template <typename T>
nlohmann::json or_null(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json text_or_null(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

nlohmann::json pass_to_json(const RunRecord::Pass& p) {
  return {{"pass", p.pass},
          {"pid", or_null(p.pid)},
          {"results", or_null(p.results)},
          {"journal", or_null(p.journal)},
          {"reused", p.reused},
          {"complete", p.complete},
          {"from_journal", p.from_journal},
          {"elapsed_s", p.elapsed_s},
          {"end", or_null(p.end)}};
}

}  // namespace

void write_run_record(const RunRecord& r, nlohmann::json& metadata) {
  if (!metadata.is_object()) metadata = nlohmann::json::object();
  auto& options = metadata["options"];
  if (!options.is_object()) options = nlohmann::json::object();
  if (!r.host_conditions.is_null()) metadata["host_conditions"] = r.host_conditions;
  metadata["warnings"] = r.warnings;
  if (r.timing)
    metadata["run_timing"] = {{"start_utc", r.timing->start_utc},
                              {"end_utc", r.timing->end_utc},
                              {"elapsed_s", r.timing->elapsed_s}};
  options["isolate"] = r.isolation.mode;
  options["timeout_s"] = or_null(r.isolation.timeout_s);
  options["timeout_basis"] = text_or_null(r.isolation.timeout_basis);
  if (r.isolation.children_started || r.isolation.compile_ahead_children)
    metadata["isolation"] = {{"children_started", or_null(r.isolation.children_started)},
                             {"compile_ahead_children", or_null(r.isolation.compile_ahead_children)}};
  else
    metadata.erase("isolation");
  options["journal"] = or_null(r.journal);
  options["resumed_rows"] = or_null(r.resumed_rows);
  if (r.shard)
    metadata["shard"] = {{"index", r.shard->index},
                         {"count", r.shard->count},
                         {"inputs", r.shard->inputs},
                         {"input_indices", r.shard->input_indices}};
  if (r.repeat_pass) metadata["repeat_pass"] = {{"pass", r.repeat_pass->pass}, {"pid", r.repeat_pass->pid}};
  if (r.repeat_passes) {
    auto passes = nlohmann::json::array();
    for (const auto& p : r.repeat_passes->passes) passes.push_back(pass_to_json(p));
    metadata["repeat_passes"] = {
        {"method", kRepeatMethodPasses},
        {"count", r.repeat_passes->count},
        {"row_figures", "the pass whose median is the median of the passes' medians"},
        {"passes", passes}};
  }
  if (r.profile)
    options["profile"] = {{"tool", r.profile->tool},
                          {"sections", r.profile->sections},
                          {"directory", r.profile->directory},
                          {"tool_path", r.profile->tool_path},
                          {"executions", r.profile->executions}};
}

RunRecord::Isolation isolation_from_metadata(const nlohmann::json& metadata) {
  RunRecord::Isolation out;
  if (!metadata.is_object()) return out;
  const auto options = metadata.value("options", nlohmann::json::object());
  if (options.contains("isolate") && options["isolate"].is_string()) out.mode = options["isolate"];
  if (options.contains("timeout_s") && options["timeout_s"].is_number())
    out.timeout_s = options["timeout_s"].get<double>();
  if (options.contains("timeout_basis") && options["timeout_basis"].is_string())
    out.timeout_basis = options["timeout_basis"];
  const auto isolation = metadata.value("isolation", nlohmann::json::object());
  if (isolation.contains("children_started") && isolation["children_started"].is_number_unsigned())
    out.children_started = isolation["children_started"].get<std::size_t>();
  if (isolation.contains("compile_ahead_children") &&
      isolation["compile_ahead_children"].is_number_unsigned())
    out.compile_ahead_children = isolation["compile_ahead_children"].get<std::size_t>();
  return out;
}

}  // namespace dnnbench
