#pragma once
// The command line of distributed runs (docs/distributed.md): `run` under mpirun, `run --shard`,
// and `merge`.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "env/run_record.hpp"
#include "input/inputs.hpp"
#include "report/results.hpp"

namespace dnnbench {

// --shard, --allow-mixed-ranks, --allow-shared-device, --rank-timeout-s.

// Under a launcher with more than one rank: the whole MPI run on this rank; nullopt otherwise.
std::optional<int> execute_run_under_mpi(RunCommand& command, const std::vector<std::string>& command_line);

// --shard I/N: which inputs this process runs (every graph is loaded to find the costs and the
// duplicates); nullopt without --shard. Throws UsageError for a bad I/N.
std::optional<std::vector<bool>> shard_inputs(const RunCommand& command,
                                              const std::vector<GraphInput>& inputs);
// Records the shard in the metadata (what `merge` reads) and stamps each row with this host.
RunRecord::Shard record_shard(const RunCommand& command, const std::vector<bool>& selected,
                              SuiteResult& suite);

struct MergeCommand {
  std::vector<std::string> files;
  std::string output;
};
void add_merge_options(CLI::App& app, MergeCommand& command);
int execute_merge(const MergeCommand& command);

}  // namespace dnnbench
