#pragma once
// `dnnbench merge A.json B.json ... -o ALL.json`: results of one suite run in parts (--shard
// job arrays, or a rerun of some graphs) as one result (docs/distributed.md).
//   - Graphs are known by their graph_path. The first file that has a graph gives its entry;
//     a later file adds only the rows that entry lacks (a row is known by provider, engine id and
//     engine label), so every row appears exactly once.
//   - Graphs are ordered by the input order the shards recorded (metadata.shard.input_indices),
//     else in order of first appearance.
//   - complete: every file is complete and, for shards, every shard 1..N of the same split is there.
//   - metadata: the first file's, with `merged_from` listing each file's path, host, shard and
//     provider versions; `warnings` says what was dropped or missing.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/results.hpp"

namespace dnnbench {

struct MergeInput {
  std::string path;        // for messages and metadata
  nlohmann::json results;  // the file's JSON
};

struct MergeOutcome {
  SuiteResult suite;
  std::vector<std::string> warnings;
  std::size_t rows_dropped = 0;  // rows already given by an earlier file
};

// Throws std::runtime_error "PATH: what is wrong" for a file that is not dnnbench results.
MergeOutcome merge_results(const std::vector<MergeInput>& inputs);

}  // namespace dnnbench
