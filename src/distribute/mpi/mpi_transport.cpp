// The MPI transport of distribute/distributed_run.hpp. Messages are JSON text on one tag, point to point
// only: no collective after the start, so that a dead rank never blocks the others.
#include <mpi.h>

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "distribute/distributed_run.hpp"

namespace dnnbench {
namespace {

constexpr int kTag = 18;
// How long MPI_Finalize may take (its fence is well under a second when every rank is alive).
constexpr int kFinalizeGraceSeconds = 20;

class MpiTransport final : public Transport {
 public:
  MpiTransport() {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
    // A worker's heartbeat thread sends while its main thread sends and receives.
    if (provided < MPI_THREAD_MULTIPLE) {
      MPI_Finalize();
      throw std::runtime_error("this MPI does not support MPI_THREAD_MULTIPLE, which dnnbench's ranks need");
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local_);
    MPI_Comm_rank(local_, &local_rank_);
    MPI_Comm_size(local_, &local_size_);
  }
  MpiTransport(const MpiTransport&) = delete;
  MpiTransport& operator=(const MpiTransport&) = delete;
  ~MpiTransport() override {
    MPI_Comm_free(&local_);
    // With a rank killed mid-run (mpirun --enable-recovery), Open MPI 4.1's finalize fence can
    // wait for the dead rank forever: seen under the ASan preset, both surviving ranks parked in
    // ompi_mpi_finalize after the results were written. Every message is matched before a rank
    // finalizes (a worker's last receive is rank 0's "done"), so a finalize that has not returned
    // after the grace period ends the process with the code it was to exit with. (Skipping the
    // fence, OMPI_MCA_async_mpi_finalize=1, is no way out: then every job hangs at exit.)
    std::thread([code = exit_code_] {
      std::this_thread::sleep_for(std::chrono::seconds(kFinalizeGraceSeconds));
      fmt::print(stderr,
                 "dnnbench: MPI_Finalize did not return in {} s (a rank was lost?); exiting with {}\n",
                 kFinalizeGraceSeconds, code);
      std::_Exit(code);
    }).detach();
    MPI_Finalize();
  }
  void set_exit_code(int code) override { exit_code_ = code; }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  int local_size() const override { return local_size_; }

  void send(int to, const std::string& text) override {
    const int rc = MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, to, kTag, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) throw std::runtime_error(fmt::format("MPI_Send to rank {} failed ({})", to, rc));
  }

  std::optional<TransportMessage> receive(double timeout_s) override {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    // One receiver at a time: a probed message must be the one received.
    std::lock_guard lock(receive_mutex_);
    for (;;) {
      int flag = 0;
      MPI_Status status{};
      MPI_Iprobe(MPI_ANY_SOURCE, kTag, MPI_COMM_WORLD, &flag, &status);
      if (flag) {
        int count = 0;
        MPI_Get_count(&status, MPI_CHAR, &count);
        TransportMessage message{status.MPI_SOURCE, std::string(static_cast<std::size_t>(count), '\0')};
        MPI_Recv(message.text.data(), count, MPI_CHAR, status.MPI_SOURCE, kTag, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        return message;
      }
      if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
      // Polling, not a blocking receive: the caller must see the stop flag and the clock. A
      // millisecond is nothing next to a row, and keeps a waiting rank off the CPU.
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
  MPI_Comm local_ = MPI_COMM_NULL;
  int exit_code_ = 0;
  std::mutex receive_mutex_;
};

}  // namespace

bool mpi_support_built() {
  return true;
}

std::unique_ptr<Transport> open_mpi_transport() {
  return std::make_unique<MpiTransport>();
}

}  // namespace dnnbench
