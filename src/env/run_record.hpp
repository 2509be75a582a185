#pragma once
// What a run records about how it ran, beside the machine, libraries and options that
// collect_metadata reads (env/metadata.hpp): when it ran, the host's conditions, its warnings, its
// isolation and child processes, its journal and resume, a shard, a --repeat pass or the passes
// merged, --profile. The command fills one record (cli/commands.cpp, cli/distributed_command.cpp)
// and write_run_record puts it into the results' metadata, so that each key has one type and one
// writer. The options it owns (isolate, timeout_s, timeout_basis, journal, resumed_rows) are
// written as null where a run did not use them, so that every results file has them; the blocks
// (run_timing, host_conditions, isolation, shard, repeat_pass, repeat_passes) only where taken.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dnnbench {

struct RunRecord {
  // metadata.run_timing: when it ran and how long the whole run took.
  struct Timing {
    std::string start_utc, end_utc;
    double elapsed_s = 0;
  };
  // metadata.options.isolate, timeout_s, timeout_basis, and metadata.isolation.
  struct Isolation {
    std::string mode = "none";        // none | graph | row
    std::optional<double> timeout_s;  // a child's deadline; nullopt: none
    std::string timeout_basis;        // "--timeout-s" or "derived from the caps"; "": none
    // Child processes the run started (with --isolate graph, 1 unless a worker was replaced) and
    // compile-ahead children; nullopt where the run does not count them (MPI ranks).
    std::optional<std::size_t> children_started, compile_ahead_children;
  };
  // metadata.shard: this part of a suite run in parts (--shard I/N).
  struct Shard {
    std::int64_t index = 0, count = 0;
    std::size_t inputs = 0;                  // graphs of the whole suite
    std::vector<std::size_t> input_indices;  // those this part ran (in suite order)
  };
  // metadata.repeat_pass: this process is pass `pass` of --repeat N.
  struct RepeatPassOf {
    int pass = 0;
    std::int64_t pid = 0;
  };
  // metadata.repeat_passes: the passes a --repeat N run merged.
  struct Pass {
    int pass = 0;
    std::optional<std::int64_t> pid;
    std::optional<std::string> results, journal;  // nullopt: in a temporary folder, removed
    bool reused = false, complete = false, from_journal = false;
    double elapsed_s = 0;
    std::optional<std::string> end;  // how its process ended; nullopt: reused
  };
  struct RepeatPasses {
    int count = 0;
    std::vector<Pass> passes;
  };
  // metadata.options.profile: --profile ncu[:SECTIONS].
  struct Profile {
    std::string tool;
    std::vector<std::string> sections;
    std::string directory, tool_path;
    std::int64_t executions = 0;
  };

  std::optional<Timing> timing;
  nlohmann::json host_conditions = nullptr;  // env/host_load.hpp's HostLoadProbe::finish
  std::vector<std::string> warnings;
  Isolation isolation;
  std::optional<std::string> journal;       // metadata.options.journal
  std::optional<std::size_t> resumed_rows;  // metadata.options.resumed_rows: rows --resume reused
  std::optional<Shard> shard;
  std::optional<RepeatPassOf> repeat_pass;
  std::optional<RepeatPasses> repeat_passes;
  std::optional<Profile> profile;
};

// Writes `record` into `metadata` (collect_metadata's object), over what those keys held.
void write_run_record(const RunRecord& record, nlohmann::json& metadata);

// The isolation a results file recorded (a --repeat pass's, which the merged run reports).
RunRecord::Isolation isolation_from_metadata(const nlohmann::json& metadata);

}  // namespace dnnbench
