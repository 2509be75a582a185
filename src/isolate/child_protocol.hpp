#pragma once
// The one way a dnnbench process starts another of itself: `dnnbench _child ROLE REQUEST.json`
// (a subcommand that help does not list). Every role's parent writes a typed request into a file
// of its own private folder and starts the child the same way; the child reads it back here, so
// the request's form lives in one place, and `run`'s options are the user's only.
//
// Every request carries `run_arguments`: the parent run's own arguments (after `run`), which the
// child parses as `run` would, so that a child measures with exactly the parent's options. A role
// adds its own fields, and for some roles run options of its own (effective_run_arguments()).
//
// The roles, and how each reports back (its typed reply):
//   graph        one graph (or its next rows), in process      rows in its journal (run/journal.hpp)
//   worker       graph after graph, one GraphJob per stdin     one JobDone line per job on stdout
//                line (isolate/isolation.hpp)                  (the first: the ready line)
//   build-ahead  its share of the suite's plans compiled       the compiled-plan cache; nothing else
//                into the cache (distribute/build_ahead.hpp)
//   repeat-pass  pass K of `--repeat N`, a plain run           its results and journal files
//                (isolate/repeat_passes.hpp)
//   profile      one row's plan, under ncu                     ncu's report (isolate/profiler.hpp)
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace dnnbench {

inline constexpr std::string_view kChildSubcommand = "_child";
// Written into every request; a child refuses a request of another version (a parent and a child of
// two different builds can only meet through a stale file).
inline constexpr int kChildProtocolVersion = 1;

enum class ChildRole { graph, worker, build_ahead, repeat_pass, profile };
std::string_view child_role_name(ChildRole role);
std::optional<ChildRole> child_role_from_name(std::string_view name);

// role graph, and each request a worker reads on its stdin.
struct GraphJob {
  std::string graph_file;    // where to read the graph
  std::string graph_path;    // its name in results (e.g. "suite.tar.gz:a.json")
  std::string journal;       // where to report; rows already in it are reused
  std::size_t max_rows = 0;  // rows to run before exiting; 0: the whole graph
  std::string dump_folder;   // --dump-tensors: the graph's folder there (the parent's choice)
};

// role worker: no fields of its own; its jobs come on stdin.
struct WorkerJobs {};

// role build-ahead: the part-th of every `parts` graphs (1-based).
struct BuildAheadPart {
  int part = 1, parts = 1;
};

// role repeat-pass: pass `pass` of --repeat, written to `results` and `journal`.
struct RepeatPass {
  int pass = 1;
  std::string results, journal;
  bool resume = false;  // --resume: reuse the rows its journal has
};

// role profile: the row's plan (the child refuses to run another).
struct ProfiledPlan {
  std::string plan;
};

using ChildJob = std::variant<GraphJob, WorkerJobs, BuildAheadPart, RepeatPass, ProfiledPlan>;

struct ChildRequest {
  std::vector<std::string> run_arguments;  // the parent run's arguments after `run`
  ChildJob job;
  ChildRole role() const;
};

nlohmann::json child_request_to_json(const ChildRequest& request);
// Throws std::invalid_argument naming `source` and the field that is missing or wrong.
ChildRequest child_request_from_json(const nlohmann::json& json, const std::string& source);
ChildRequest read_child_request(const std::filesystem::path& file);

// The arguments the child parses as `run` would: run_arguments, then the role's own options (the
// last of a repeated option wins, so these override the parent's):
//   repeat-pass: -o results --journal journal -q --progress none [--resume]
//   others:      run_arguments as they are.
std::vector<std::string> effective_run_arguments(const ChildRequest& request);

// Writes `request` into `folder` (a new file per call) and returns the command line that starts the
// child for it: `self _child ROLE FILE`.
std::vector<std::string> child_command(const ChildRequest& request, const std::filesystem::path& folder,
                                       const std::string& self = "/proc/self/exe");

// A worker's jobs and replies, one JSON line each. `id` pairs a reply with its job.
std::string worker_job_line(const GraphJob& job, std::uint64_t id);
// Throws std::invalid_argument naming the field that is missing or wrong.
std::pair<GraphJob, std::uint64_t> worker_job_from_line(const std::string& line);

// The worker's first line says it has started.
inline constexpr std::string_view kWorkerReadyLine = R"({"ready":true})";

struct JobDone {
  std::uint64_t id = 0;
  std::string retiring;  // why this worker serves no further job ("device lost"); "" when it goes on
};
std::string job_done_line(const JobDone& reply);
// nullopt for a line that is not a reply (a confused worker).
std::optional<JobDone> job_done_from_line(const std::string& line);

}  // namespace dnnbench
