#pragma once
// Rank 0's bookkeeping of an MPI run (distribute/distributed_run.hpp): which graph goes to which rank
// next, and what happens to the graph of a rank that died. Pure state, no MPI: unit-tested.
//   - next(): the costliest graph still waiting, so that the long ones start first and the short
//     ones fill the gaps at the end; a retried graph goes to another rank than the one it died on,
//     when another rank is free.
//   - a graph whose rank died is retried once (attempts_allowed), on another rank; after that it
//     is given up (the caller records it as an error).
#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace dnnbench {

class GraphScheduler {
 public:
  // `costs`: of the graphs to run, by graph index; `runnable`: which of them to run at all.
  GraphScheduler(const std::vector<double>& costs, const std::vector<bool>& runnable,
                 int attempts_allowed = 2);

  // The graph `rank` should run next, now in flight on it; nullopt when nothing waits (or the
  // rank is dead, or busy).
  std::optional<std::size_t> next(int rank);
  // The graph in flight on `rank` finished (or stopped; it is no longer in flight).
  void finished(int rank);
  // `rank` died. Returns its graph in flight, if any, and whether that graph will be retried.
  struct Lost {
    std::optional<std::size_t> graph;
    bool retried = false;
  };
  Lost rank_lost(int rank);

  std::optional<std::size_t> in_flight(int rank) const;
  int attempts(std::size_t graph) const;
  bool rank_alive(int rank) const { return dead_.count(rank) == 0; }
  // Nothing waits and nothing is in flight.
  bool done() const { return waiting_.empty() && running_.empty(); }
  std::size_t waiting() const { return waiting_.size(); }

 private:
  std::deque<std::size_t> waiting_;      // costliest first; retries go to the front
  std::map<int, std::size_t> running_;   // rank -> graph
  std::map<std::size_t, int> attempts_;  // graph -> times handed out
  std::set<int> dead_;
  int attempts_allowed_;
};

}  // namespace dnnbench
