#pragma once
// The tuning database (docs/tuning-db.md, schema docs/tuning-db.schema.json): what the oracle
// measured, kept so that it can travel between runs, machines and library versions. A JSON-lines
// file, one record per row the oracle ran on, keyed by the graph's canonical content hash, the
// device (name, compute capability, driver), the library (provider name and version), the engine
// and the fp32 math policy. A record holds the heuristic plan and its stats, every candidate of
// the sweep with its median or its failure, the winner, and the paired delta's significance.
//
// Plans are stored structured (engine id + knobs in order), never as a name to parse back: the
// name is printable (PlanSpec::name), the structure rebuilds the plan on any provider.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/results.hpp"

namespace dnnbench {

inline constexpr const char* kTuningDbFormat = "dnnbench-tuning-db";
inline constexpr int kTuningDbVersion = 1;

// The records of a finished run: one per row with an oracle result (rows whose oracle failed,
// or that did not run, have none). The device and library come from the run's metadata.
std::vector<nlohmann::json> tuning_records(const SuiteResult& suite);

// The key of a record as one canonical string (its `key` object dumped with sorted keys).
std::string tuning_key_text(const nlohmann::json& record);

// Checks that `record` is a tuning record of this format version; throws std::runtime_error
// saying which key is missing or wrong.
void check_tuning_record(const nlohmann::json& record);

// Reads a JSON-lines tuning file (blank lines allowed). Throws std::runtime_error
// "FILE:LINE: problem" for a line that is not a record.
std::vector<nlohmann::json> read_tuning_file(const std::string& path);
// Writes the records, one per line, atomically (a temporary file, then rename).
void write_tuning_file(const std::string& path, const std::vector<nlohmann::json>& records);

// `dnnbench plans merge`: every record of `a` then of `b`, identical records once. Records of
// one key with different winners are all kept (a conflict, listed in `conflicts` with each
// winner's speedup and CI); nothing is ever overwritten.
struct TuningMerge {
  std::vector<nlohmann::json> records;
  std::size_t duplicates = 0;          // identical records dropped
  std::vector<std::string> conflicts;  // one line per key with more than one winner
};
TuningMerge merge_tuning_records(const std::vector<nlohmann::json>& a, const std::vector<nlohmann::json>& b);

// A tuning file loaded for --plans-from.
class TuningDb {
 public:
  static TuningDb read(const std::string& path);
  const std::string& path() const { return path_; }
  const std::vector<nlohmann::json>& records() const { return records_; }
  // The records of one row: same graph hash, provider, engine id and fp32 math (null matches
  // null); those measured on `device` first, then the others; within each, the newest first.
  std::vector<const nlohmann::json*> find(const std::string& graph_hash, const std::string& provider,
                                          const std::string& engine_id,
                                          const std::optional<std::string>& fp32_math,
                                          const std::string& device) const;
  // The engine ids stored for a graph and provider, in the file's order, each once.
  std::vector<std::string> engines_for(const std::string& graph_hash, const std::string& provider) const;

 private:
  std::string path_;
  std::vector<nlohmann::json> records_;
};

}  // namespace dnnbench
