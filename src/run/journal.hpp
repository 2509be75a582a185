#pragma once
// The run journal: one JSON line per event, appended and flushed before the run goes on, so a
// run killed at any point (SIGKILL, a crash, a power cut aside) keeps every finished row.
//   {"dnnbench_journal": 1, "options": {...}}            first line: the options fingerprint
//   {"event": "row_started", "graph_path", "content_hash", "provider", "engine_id", "engine_name"}
//   {"event": "row", "graph_path", "content_hash", "row": {row JSON}, "best_plan": {...}|null}
//   {"event": "graph", "graph_path", "content_hash", "graph": {graph JSON}}
// `--resume` reads it back (read_journal) to skip what is finished. Isolated children
// (isolate/isolation.hpp) report to their parent through the same format.
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/results.hpp"
#include "run/suite_runner.hpp"
#include "session/run_options.hpp"

namespace dnnbench {

// The options that change a row's result (providers, engines, timing and stopping rule, seed,
// tolerances, oracle, limits) and the tool's version. Output paths, progress and isolation are
// left out: they change where results go, not what they are.
nlohmann::json options_fingerprint(const RunOptions& options);
// "seed: 42 -> 7" per option that differs between two fingerprints, in key order.
std::vector<std::string> fingerprint_differences(const nlohmann::json& before, const nlohmann::json& now);

// A graph is the same graph for the journal when both its path and its content are.
std::string journal_graph_key(const std::string& graph_path, const std::optional<std::string>& content_hash);

// Appends events to a journal file; a RunObserver, so it sits beside the console sink.
class JournalWriter final : public RunObserver {
 public:
  // `append`: keep the file's events (resume; an isolated child); the header is written when the
  // file is new or empty. Otherwise the file starts over. Throws std::runtime_error naming the path.
  JournalWriter(const std::filesystem::path& path, const nlohmann::json& fingerprint, bool append);
  ~JournalWriter() override;
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;

  void row_started(const GraphResult& graph, std::string_view provider, const EngineInfo& engine) override;
  void row_finished(const GraphResult& graph, const RowResult& row) override;
  void graph_finished(const GraphResult& graph) override;
  const std::filesystem::path& path() const { return path_; }

 private:
  void write(nlohmann::json event, const GraphResult& graph);

  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
};

// A row that started and did not finish (the process died in it).
struct StartedRow {
  std::string provider, engine_id, engine_name;
};

// What a journal holds about one graph.
struct JournalGraph {
  std::optional<GraphResult> finished;  // the graph finished: every row, in order
  FinishedRows rows;                    // rows finished, by key (the last one of a key wins)
  std::vector<std::string> row_order;   // keys of `rows` in the order first written
  std::optional<StartedRow> unfinished;
};

struct Journal {
  nlohmann::json options;                      // the fingerprint of the run that wrote it
  std::map<std::string, JournalGraph> graphs;  // by journal_graph_key
  std::size_t rows = 0;                        // row events read
  const JournalGraph* find(const std::string& graph_path,
                           const std::optional<std::string>& content_hash) const;
};

// Reads a journal. A last line cut short (the writer was killed mid-line) is ignored; any other
// bad line throws std::runtime_error "FILE:LINE: what is wrong".
Journal read_journal(const std::filesystem::path& path);

}  // namespace dnnbench
