#include "report/tuning_db.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

#include "report/json_read.hpp"
#include "report/json_report.hpp"

namespace dnnbench {
namespace {

using nlohmann::json;

json string_or_null(const json& object, const char* key) {
  if (object.is_object() && object.contains(key) && object[key].is_string()) return object[key];
  return nullptr;
}

// The candidate of the sweep that is the winner: its knobs keep the plan's order (the oracle's
// `knobs` object of the results does not).
const OracleCandidate* candidate_named(const OracleResult& oracle, const std::string& name) {
  for (const auto& c : oracle.candidates)
    if (c.plan_name == name) return &c;
  return nullptr;
}

json record_of(const json& metadata, const GraphResult& graph, const RowResult& row) {
  const auto& o = *row.oracle;
  const json providers = metadata.value("providers", json::object());
  const json provider =
      providers.is_object() ? providers.value(row.provider, json::object()) : json::object();
  const json device = provider.is_object() ? provider.value("device", json::object()) : json::object();
  const json host = metadata.value("host", json::object());
  const bool gpu = device.is_object() && device.contains("device");
  const json device_name = gpu ? device["device"] : string_or_null(host, "cpu_model");
  const json key = {{"graph_hash", *graph.content_hash},
                    {"provider", row.provider},
                    {"library_version", string_or_null(provider, "version")},
                    {"engine_id", row.engine_id.value_or("")},
                    {"device", device_name.is_null() ? json("unknown") : device_name},
                    {"compute_capability", string_or_null(device, "compute_capability")},
                    {"driver", string_or_null(device, "cuda_driver_version")},
                    {"fp32_math", row.fp32_math ? json(*row.fp32_math) : json(nullptr)}};
  const bool kernel_basis = row.gpu_kernel_stats.has_value();
  json candidates = json::array();
  for (const auto& c : o.candidates)
    candidates.push_back({{"plan_name", c.plan_name},
                          {"knobs", knob_list_to_json(c.knobs)},
                          {"measured", c.measured},
                          {"median_ms", c.median_ms ? json(*c.median_ms) : json(nullptr)},
                          {"error", c.error ? json(*c.error) : json(nullptr)},
                          {"screened_out", c.screened_out},
                          {"leader", c.leader}});
  const auto* won = candidate_named(o, o.plan_name);
  const auto& paired = o.gpu_kernel_stats ? o.gpu_kernel_stats : o.host_stats;
  const json recorded = {
      {"timestamp_utc", string_or_null(metadata, "timestamp_utc")},
      {"host", string_or_null(host, "hostname")},
      {"tool_version",
       metadata.contains("tool") ? string_or_null(metadata["tool"], "version") : json(nullptr)},
      {"git_revision",
       metadata.contains("tool") ? string_or_null(metadata["tool"], "git_revision") : json(nullptr)}};
  return {{"format", kTuningDbFormat},
          {"format_version", kTuningDbVersion},
          {"key", key},
          {"graph_name", graph.graph_name},
          {"graph_path", graph.graph_path},
          {"engine_name", row.engine_name ? json(*row.engine_name) : json(nullptr)},
          {"basis", kernel_basis ? "gpu_kernel" : "host"},
          {"heuristic",
           {{"plan_name", row.plan_name.value_or("")},
            {"knobs", knob_list_to_json(row.plan_knobs)},
            {"stats", stats_to_json(kernel_basis ? row.gpu_kernel_stats : row.host_stats)}}},
          {"search", o.search},
          {"verdict", o.verdict},
          {"budget_exhausted", o.budget_exhausted},
          {"candidates", candidates},
          {"winner",
           {{"plan_name", o.plan_name},
            {"knobs", knob_list_to_json(won ? won->knobs : o.knobs)},
            {"sweep_median_ms", won && won->median_ms ? json(*won->median_ms) : json(nullptr)},
            {"stats", stats_to_json(paired)}}},
          {"significance", delta_to_json(row.oracle_delta)},
          {"delta_withheld", o.delta_withheld ? json(*o.delta_withheld) : json(nullptr)},
          {"recorded", recorded}};
}

void require(const json& object, const char* key, json::value_t type, const char* what) {
  if (!object.is_object() || !object.contains(key))
    throw std::runtime_error(fmt::format("{}: missing key '{}'", what, key));
  const auto& value = object[key];
  // Numbers by kind: a record built in memory holds signed integers, one parsed back unsigned ones.
  const bool ok = type == json::value_t::number_float      ? value.is_number()
                  : type == json::value_t::number_unsigned ? value.is_number_integer()
                                                           : value.type() == type;
  if (!ok)
    throw std::runtime_error(fmt::format("{}: key '{}' has the wrong type: {}", what, key, value.dump()));
}

void require_plan(const json& plan, const char* what) {
  require(plan, "plan_name", json::value_t::string, what);
  require(plan, "knobs", json::value_t::array, what);
  read_knob_list(plan["knobs"]);
}

std::string winner_line(const json& record) {
  const auto& s = record["significance"];
  const std::string where = fmt::format(
      "{} {}",
      record["key"]["library_version"].is_string() ? record["key"]["library_version"].get<std::string>()
                                                   : "?",
      record["recorded"].is_object() && record["recorded"]["timestamp_utc"].is_string()
          ? record["recorded"]["timestamp_utc"].get<std::string>()
          : "");
  if (!s.is_object())
    return fmt::format("{} (no delta; {})", record["winner"]["plan_name"].get<std::string>(), where);
  return fmt::format("{} ({:.3f}x [{:.3f}, {:.3f}]{}; {})", record["winner"]["plan_name"].get<std::string>(),
                     s["speedup"].is_number() ? s["speedup"].get<double>() : 0.0,
                     s["ci95"][0].is_number() ? s["ci95"][0].get<double>() : 0.0,
                     s["ci95"][1].is_number() ? s["ci95"][1].get<double>() : 0.0,
                     s["significant"].get<bool>() ? "" : ", n.s.", where);
}

}  // namespace

std::vector<json> tuning_records(const SuiteResult& suite) {
  std::vector<json> records;
  for (const auto& graph : suite.graphs) {
    if (!graph.content_hash) continue;
    for (const auto& row : graph.results)
      if (row.status == RowStatus::success && row.oracle && !row.oracle_error && row.engine_id)
        records.push_back(record_of(suite.metadata, graph, row));
  }
  return records;
}

std::string tuning_key_text(const json& record) {
  return record.at("key").dump();
}

void check_tuning_record(const json& record) {
  if (!record.is_object()) throw std::runtime_error("a tuning record is a JSON object");
  require(record, "format", json::value_t::string, "record");
  if (record["format"] != kTuningDbFormat)
    throw std::runtime_error(
        fmt::format("record: format is {}, not \"{}\"", record["format"].dump(), kTuningDbFormat));
  require(record, "format_version", json::value_t::number_unsigned, "record");
  if (record["format_version"] != kTuningDbVersion)
    throw std::runtime_error(
        fmt::format("record: format_version {} is not {} (this dnnbench reads version {})",
                    record["format_version"].dump(), kTuningDbVersion, kTuningDbVersion));
  require(record, "key", json::value_t::object, "record");
  const auto& key = record["key"];
  for (const char* k : {"graph_hash", "provider", "engine_id", "device"})
    require(key, k, json::value_t::string, "key");
  for (const char* k : {"library_version", "compute_capability", "driver", "fp32_math"})
    if (!key.contains(k)) throw std::runtime_error(fmt::format("key: missing key '{}'", k));
  require(record, "heuristic", json::value_t::object, "record");
  require_plan(record["heuristic"], "heuristic");
  require(record, "winner", json::value_t::object, "record");
  require_plan(record["winner"], "winner");
  require(record, "candidates", json::value_t::array, "record");
  if (!record.contains("significance")) throw std::runtime_error("record: missing key 'significance'");
}

std::vector<json> read_tuning_file(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error(fmt::format("{}: cannot read the tuning file", path));
  std::vector<json> records;
  std::string line;
  for (std::size_t number = 1; std::getline(file, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      auto record = json::parse(line);
      check_tuning_record(record);
      records.push_back(std::move(record));
    } catch (const json::exception& e) {
      throw std::runtime_error(fmt::format("{}:{}: not JSON: {}", path, number, e.what()));
    } catch (const std::exception& e) {
      throw std::runtime_error(
          fmt::format("{}:{}: not a dnnbench tuning record: {}", path, number, e.what()));
    }
  }
  return records;
}

void write_tuning_file(const std::string& path, const std::vector<json>& records) {
  const auto temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    if (!out) throw std::runtime_error(fmt::format("{}: cannot write the tuning file", path));
    for (const auto& record : records) out << record.dump() << '\n';
    if (!out.flush()) throw std::runtime_error(fmt::format("{}: cannot write the tuning file", path));
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0)
    throw std::runtime_error(fmt::format("{}: cannot write the tuning file (rename failed)", path));
}

TuningMerge merge_tuning_records(const std::vector<json>& a, const std::vector<json>& b) {
  TuningMerge merged;
  std::set<std::string> seen;                              // whole records, dumped
  std::map<std::string, std::vector<std::size_t>> by_key;  // key -> indices into merged.records
  for (const auto* part : {&a, &b})
    for (const auto& record : *part) {
      if (!seen.insert(record.dump()).second) {
        ++merged.duplicates;
        continue;
      }
      by_key[tuning_key_text(record)].push_back(merged.records.size());
      merged.records.push_back(record);
    }
  for (const auto& [key, indices] : by_key) {
    std::set<std::string> winners;
    for (auto i : indices) winners.insert(merged.records[i]["winner"]["plan_name"].get<std::string>());
    if (winners.size() < 2) continue;
    const auto& k = merged.records[indices.front()]["key"];
    std::vector<std::string> lines;
    for (auto i : indices) lines.push_back(winner_line(merged.records[i]));
    merged.conflicts.push_back(fmt::format("{} / {} / engine {} on {} ({}): winners {}",
                                           merged.records[indices.front()].value("graph_name", "?"),
                                           k["provider"].get<std::string>(),
                                           k["engine_id"].get<std::string>(), k["device"].get<std::string>(),
                                           k["graph_hash"].get<std::string>(), fmt::join(lines, " vs ")));
  }
  return merged;
}

TuningDb TuningDb::read(const std::string& path) {
  TuningDb db;
  db.path_ = path;
  db.records_ = read_tuning_file(path);
  return db;
}

std::vector<const json*> TuningDb::find(const std::string& graph_hash, const std::string& provider,
                                        const std::string& engine_id,
                                        const std::optional<std::string>& fp32_math,
                                        const std::string& device) const {
  std::vector<const json*> found;
  const json math = fp32_math ? json(*fp32_math) : json(nullptr);
  for (const auto& r : records_) {
    const auto& k = r["key"];
    if (k["graph_hash"] == graph_hash && k["provider"] == provider && k["engine_id"] == engine_id &&
        k["fp32_math"] == math)
      found.push_back(&r);
  }
  const auto stamp = [](const json* r) {
    const auto& rec = (*r)["recorded"];
    return rec.is_object() && rec["timestamp_utc"].is_string() ? rec["timestamp_utc"].get<std::string>() : "";
  };
  std::stable_sort(found.begin(), found.end(), [&](const json* x, const json* y) {
    const bool xd = (*x)["key"]["device"] == device, yd = (*y)["key"]["device"] == device;
    if (xd != yd) return xd;
    return stamp(x) > stamp(y);
  });
  return found;
}

std::vector<std::string> TuningDb::engines_for(const std::string& graph_hash,
                                               const std::string& provider) const {
  std::vector<std::string> ids;
  for (const auto& r : records_) {
    const auto& k = r["key"];
    if (k["graph_hash"] != graph_hash || k["provider"] != provider) continue;
    const auto id = k["engine_id"].get<std::string>();
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  return ids;
}

}  // namespace dnnbench
