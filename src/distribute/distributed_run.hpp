#pragma once
// One suite over the ranks of an MPI job (`mpirun -np N dnnbench run ...`, docs/distributed.md).
//   - Every rank expands the same -g arguments; rank 0 loads every graph (duplicates are found
//     over the whole suite), orders them by estimated cost and hands them out one at a time, the
//     costliest first, to whichever rank asks (rank 0 runs graphs too, on its main thread, while a
//     second thread schedules).
//   - Each rank uses one GPU (distribute/distribution.hpp: choose_device), set before any library starts.
//   - At start every rank reports its host, device and library versions; rank 0 refuses (exit 2)
//     ranks that differ, or that share a GPU, unless the user allows it.
//   - Each rank journals its own rows to <journal>.rank<R>.jsonl; rank 0 also writes every row of
//     every rank to <journal> (the single-process format, so --resume reads it), and writes the
//     merged results, each row stamped with the rank and host that measured it.
//   - A rank that goes silent (no heartbeat for rank_timeout_s: killed, segfaulted, node lost)
//     loses its graph in flight: the rows it finished are kept, and the graph goes to another
//     rank once; dying a second time, it is recorded with an error row.
//   - A stop (SIGINT/SIGTERM; mpirun turns SIGINT into SIGTERM to every rank and kills them about
//     a second later) makes rank 0 write what finished at once, with complete: false.
// The MPI calls sit behind Transport (distribute/mpi/ when built; distribute/mpi_none.cpp otherwise).
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "input/inputs.hpp"
#include "isolate/isolation.hpp"
#include "report/results.hpp"
#include "run/suite_runner.hpp"
#include "session/run_options.hpp"

namespace dnnbench {

struct TransportMessage {
  int from = 0;
  std::string text;
};

// Messages between the ranks of one job. send() may be called from several threads at once.
class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual int local_rank() const = 0;  // among the ranks of this host
  virtual int local_size() const = 0;
  virtual void send(int to, const std::string& text) = 0;
  // The next message to this rank, waiting at most timeout_s; nullopt when none came.
  virtual std::optional<TransportMessage> receive(double timeout_s) = 0;
  // The exit code this process returns once the transport is closed: what it exits with if
  // closing cannot complete (MpiTransport: a finalize waiting for a dead rank).
  virtual void set_exit_code(int /*code*/) {}
};

// Whether this binary has MPI support (CMake found an MPI).
bool mpi_support_built();
// The number of ranks the launcher (mpirun, srun) started, read from its environment; 1 when this
// process was not started by one.
int launcher_world_size();
// Starts MPI (MPI_THREAD_MULTIPLE). Throws std::runtime_error when MPI support is not built, or
// the MPI cannot give what is needed.
std::unique_ptr<Transport> open_mpi_transport();

struct DistributedRequest {
  const RunOptions* options = nullptr;
  std::vector<GraphInput> inputs;
  std::vector<std::string> run_arguments;  // the run's arguments after `run`, for isolated children
  std::string journal;                     // "" : none (then --resume is refused, and ranks keep no journal)
  bool resume = false;
  IsolationMode isolation = IsolationMode::none;
  std::optional<double> timeout_s;   // --timeout-s of isolated children
  bool allow_mixed = false;          // --allow-mixed-ranks
  bool allow_shared_device = false;  // --allow-shared-device
  double rank_timeout_s = 60;        // --rank-timeout-s: silence after which a rank is taken for dead
  std::string output;                // rank 0 writes the merged results here ("" : nowhere)
  RunObserver* observer = nullptr;   // rank 0's console (graphs as they finish, from every rank)
  // The metadata of the results (rank 0), before the ranks' part is added.
  std::function<nlohmann::json()> metadata;
};

struct DistributedOutcome {
  bool root = false;  // rank 0: `suite` holds the merged results
  SuiteResult suite;
  int exit_code = 0;
  std::string message;  // why the run was refused (exit 2), for stderr
};

DistributedOutcome run_distributed(Transport& transport, const DistributedRequest& request);

// The files of an MPI run's journals: <journal> and <journal>.rank<R>.jsonl.
std::string rank_journal_path(const std::string& journal, int rank);

}  // namespace dnnbench
