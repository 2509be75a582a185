#pragma once
// --profile ncu[:SECTIONS] (docs/profiling.md): after the run, each successful row's plan is run
// again in a child process of this binary under Nsight Compute. The child's command line comes
// from a fixed allowlist (graph, provider, engine, plan, seed, math, a few executions) and holds
// no profiling flag, so it can never start a profiler itself; it brackets only its timed
// executions for the profiler (cudaProfilerStart/Stop, an NVTX range graph/provider/engine/plan).
// Each child runs in its own process group with a timeout (isolate/child_process.hpp). The artefacts,
// the .ncu-rep and the CSV `ncu --import X --csv --page raw` exports, go to --profile-dir; the
// row gets `profile`: per kernel its duration, SM and DRAM throughput, achieved occupancy,
// registers, shared memory, grid and block.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "isolate/child_protocol.hpp"
#include "report/results.hpp"
#include "session/run_options.hpp"

namespace dnnbench {

struct ProfileRequest {
  std::string tool;                   // "ncu" (nsys is refused: profiling_refusal says why)
  std::vector<std::string> sections;  // ncu --section values; empty: ncu's default set
  std::string directory;              // --profile-dir
  std::string tool_path;              // the ncu found on PATH (profiling_refusal fills it)
  std::int64_t executions = 3;        // timed executions the child captures
  double timeout_s = 300;             // per child
};

// Parses --profile's value ("ncu", "ncu:SpeedOfLight,Occupancy", "nsys"); throws
// std::invalid_argument with the reason for anything else.
ProfileRequest parse_profile_spec(const std::string& text);

// Empty when the profiler can run here; else why not, for an exit 2 before anything runs: the
// tool is not on PATH, the GPU's counters are for administrators only, or the tool is nsys.
// Fills request.tool_path. `nvidia_params` is /proc/driver/nvidia/params (for tests).
std::string profiling_refusal(ProfileRequest& request, const std::string& path_env,
                              const std::filesystem::path& nvidia_params = "/proc/driver/nvidia/params");

// Why the GPU's performance counters cannot be read by this user, from the text of
// /proc/driver/nvidia/params ("RmProfilingAdminOnly: 1"); empty when they can.
std::string counter_permission_problem(std::string_view nvidia_params_text, bool is_root);

// The profiled child's request (role profile, isolate/child_protocol.hpp): the allowlisted `run`
// arguments for one row, and the row's plan.
ChildRequest profile_child_request(const std::string& graph_file, const RowResult& row,
                                   const RunOptions& options, std::int64_t executions);
// The whole command: ncu, its options (capture range only, no clock or cache control, so that
// kernel times compare with dnnbench's own), the report path, then the child.
std::vector<std::string> ncu_command(const ProfileRequest& request, const std::string& report_base,
                                     const std::vector<std::string>& child);

// Kernels of ncu's raw-page CSV (`--csv --page raw --print-units base`): the first line names
// the columns, the second gives units; one line per profiled launch. Launches of one name, grid
// and block are one kernel: its duration the median, its launches per execution the count over
// `executions`. Throws std::runtime_error for a CSV without the kernel name or duration column.
std::vector<ProfiledKernel> kernels_from_ncu_csv(const std::string& csv, std::int64_t executions);

// Fills profile.ratio_to_cupti, same_kernels_as_row and kernels_not_in_row from the row's CUPTI
// record (kernels[], kernel_sum_stats); leaves them empty where the row has no CUPTI record.
void compare_profile_with_row(ProfileResult& profile, const RowResult& row);

// Profiles every successful row of the suite; `graph_files` maps a graph_path to the file its
// child reads. Rows of failed profiles get `profile.error`. Progress lines go to stderr.
void profile_rows(SuiteResult& suite, const std::map<std::string, std::filesystem::path>& graph_files,
                  const RunOptions& options, const ProfileRequest& request, bool quiet);

}  // namespace dnnbench
