#include "run/journal.hpp"

#include <fmt/format.h>

#include <fstream>
#include <stdexcept>

#include "providers/registry.hpp"
#include "report/json_read.hpp"
#include "report/json_report.hpp"
#include "version/git_revision.hpp"

namespace dnnbench {
namespace {

using nlohmann::json;

constexpr int kJournalVersion = 1;

template <class T>
json optional_json(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

json engine_matrix_json(const std::vector<EngineChoice>& matrix) {
  json out = json::array();
  for (const auto& c : matrix)
    out.push_back({{"provider", c.provider}, {"id", c.id}, {"label", optional_json(c.label)}});
  return out;
}

void collect_differences(const json& before, const json& now, const std::string& prefix,
                         std::vector<std::string>& out) {
  if (before.is_object() && now.is_object()) {
    for (const auto& [key, value] : before.items())
      collect_differences(value, now.contains(key) ? now.at(key) : json(nullptr), prefix + key + ".", out);
    for (const auto& [key, value] : now.items())
      if (!before.contains(key)) collect_differences(json(nullptr), value, prefix + key + ".", out);
    return;
  }
  if (before != now)
    out.push_back(
        fmt::format("{}: {} -> {}", prefix.substr(0, prefix.size() - 1), before.dump(), now.dump()));
}

}  // namespace

json options_fingerprint(const RunOptions& o) {
  const auto providers = o.providers.empty() ? default_provider_names() : o.providers;
  return {{"tool", fmt::format("{} ({})", DNNBENCH_VERSION, git_revision())},
          {"providers", providers},
          {"engines", o.engines},
          {"skip_engines", o.skip_engines},
          {"engine_matrix", engine_matrix_json(o.engine_matrix)},
          {"ops", o.ops},
          {"warmup", o.warmup},
          {"iters", optional_json(o.iters)},
          {"target_ci", o.adaptive.target_ci_rel},
          {"min_iters", o.adaptive.min_iters},
          {"max_iters", o.adaptive.max_iters},
          {"min_time_ms", o.adaptive.min_time_ms},
          {"max_time_ms", o.adaptive.max_time_ms},
          {"seed", o.seed},
          {"fill", fill_kind_name(o.fill)},
          {"fp32_math", fp32_math_name(o.fp32_math)},
          {"graph_replay", o.measure.graph_replay},
          {"regime", regime_name(o.measure.regime)},
          {"rtol", optional_json(o.rtol)},
          {"atol", optional_json(o.atol)},
          {"save_samples", o.save_samples},
          {"oracle",
           {{"enabled", o.oracle.enabled},
            {"aa_self_check", o.oracle.aa_self_check},
            {"max_plans", o.oracle.max_plans},
            {"max_seconds", o.oracle.max_seconds},
            {"min_effect", o.oracle.min_effect}}},
          {"plans_from", o.plans_from ? json(o.plans_from->path()) : json(nullptr)},
          {"max_graph_bytes", o.limits.max_graph_bytes}};
}

std::vector<std::string> fingerprint_differences(const json& before, const json& now) {
  std::vector<std::string> out;
  collect_differences(before, now, "", out);
  return out;
}

std::string journal_graph_key(const std::string& graph_path, const std::optional<std::string>& content_hash) {
  return graph_path + '\n' + content_hash.value_or("");
}

JournalWriter::JournalWriter(const std::filesystem::path& path, const json& fingerprint, bool append)
    : path_(path) {
  file_ = std::fopen(path.c_str(), append ? "a" : "w");
  if (!file_) throw std::runtime_error(fmt::format("cannot write the journal {}", path.string()));
  std::fseek(file_, 0, SEEK_END);
  if (std::ftell(file_) == 0) {
    const auto line = json{{"dnnbench_journal", kJournalVersion}, {"options", fingerprint}}.dump() + '\n';
    std::fputs(line.c_str(), file_);
    std::fflush(file_);
  }
}

JournalWriter::~JournalWriter() {
  if (file_) std::fclose(file_);
}

void JournalWriter::write(json event, const GraphResult& graph) {
  event["graph_path"] = graph.graph_path;
  event["content_hash"] = optional_json(graph.content_hash);
  const auto line = event.dump() + '\n';
  // Flushed to the kernel per event: a killed process loses nothing written. No fsync: a row
  // takes milliseconds to seconds, and only a power cut could lose what the kernel holds.
  if (std::fputs(line.c_str(), file_) < 0 || std::fflush(file_) != 0)
    throw std::runtime_error(fmt::format("error writing the journal {}", path_.string()));
}

void JournalWriter::row_started(const GraphResult& graph, std::string_view provider,
                                const EngineInfo& engine) {
  write({{"event", "row_started"},
         {"provider", provider},
         {"engine_id", engine.id},
         {"engine_name", engine.name}},
        graph);
}

void JournalWriter::row_finished(const GraphResult& graph, const RowResult& row) {
  write({{"event", "row"}, {"row", row_to_json(row)}, {"best_plan", plan_ref_to_json(row.best_plan)}}, graph);
}

void JournalWriter::graph_finished(const GraphResult& graph) {
  write({{"event", "graph"}, {"graph", graph_to_json(graph)}}, graph);
}

const JournalGraph* Journal::find(const std::string& graph_path,
                                  const std::optional<std::string>& content_hash) const {
  const auto it = graphs.find(journal_graph_key(graph_path, content_hash));
  return it == graphs.end() ? nullptr : &it->second;
}

namespace {

void apply_event(Journal& journal, const json& event) {
  const auto type = event.at("event").get<std::string>();
  const auto content_hash = event.at("content_hash").is_null()
                                ? std::nullopt
                                : std::optional<std::string>(event.at("content_hash").get<std::string>());
  auto& graph = journal.graphs[journal_graph_key(event.at("graph_path").get<std::string>(), content_hash)];
  if (type == "row_started") {
    graph.unfinished =
        StartedRow{event.at("provider").get<std::string>(), event.at("engine_id").get<std::string>(),
                   event.at("engine_name").get<std::string>()};
  } else if (type == "row") {
    auto row = row_from_json(event.at("row"));
    row.best_plan = plan_ref_from_json(event.at("best_plan"));
    const auto key = FinishedRows::key(row.provider, row.engine_id);
    if (graph.unfinished && FinishedRows::key(graph.unfinished->provider, graph.unfinished->engine_id) == key)
      graph.unfinished.reset();
    if (!graph.rows.find(row.provider, row.engine_id)) graph.row_order.push_back(key);
    graph.rows.add(std::move(row));
    ++journal.rows;
  } else if (type == "graph") {
    graph.finished = graph_from_json(event.at("graph"));
    graph.finished->content_hash = content_hash;
    graph.unfinished.reset();
  } else {
    throw std::runtime_error(fmt::format("unknown event '{}'", type));
  }
}

}  // namespace

Journal read_journal(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open the journal", path.string()));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(std::move(line));
  Journal journal;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto where = fmt::format("{}:{}", path.string(), i + 1);
    auto event = json::parse(lines[i], nullptr, /*allow_exceptions=*/false);
    if (event.is_discarded()) {
      if (i > 0 && i + 1 == lines.size()) break;  // cut short by a kill while writing
      throw std::runtime_error(where + ": not a JSON line");
    }
    try {
      if (i == 0) {
        if (!event.is_object() || event.value("dnnbench_journal", 0) != kJournalVersion)
          throw std::runtime_error(
              fmt::format("not a dnnbench journal (version {} expected in the first line)", kJournalVersion));
        journal.options = event.at("options");
        continue;
      }
      apply_event(journal, event);
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("{}: {}", where, e.what()));
    }
  }
  if (lines.empty()) throw std::runtime_error(path.string() + ":1: the journal is empty");
  return journal;
}

}  // namespace dnnbench
