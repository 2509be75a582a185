#include "distribute/scheduler.hpp"

#include "distribute/distribution.hpp"

namespace dnnbench {

GraphScheduler::GraphScheduler(const std::vector<double>& costs, const std::vector<bool>& runnable,
                               int attempts_allowed)
    : attempts_allowed_(attempts_allowed) {
  for (const auto i : cost_order(costs))
    if (i < runnable.size() && runnable[i]) waiting_.push_back(i);
}

std::optional<std::size_t> GraphScheduler::next(int rank) {
  if (dead_.count(rank) || running_.count(rank)) return std::nullopt;
  // A rank that died is never asked again, so a retried graph always goes to another rank.
  if (waiting_.empty()) return std::nullopt;
  const auto graph = waiting_.front();
  waiting_.pop_front();
  running_[rank] = graph;
  ++attempts_[graph];
  return graph;
}

void GraphScheduler::finished(int rank) {
  running_.erase(rank);
}

GraphScheduler::Lost GraphScheduler::rank_lost(int rank) {
  dead_.insert(rank);
  Lost lost;
  const auto it = running_.find(rank);
  if (it == running_.end()) return lost;
  lost.graph = it->second;
  running_.erase(it);
  lost.retried = attempts_[*lost.graph] < attempts_allowed_;
  if (lost.retried) waiting_.push_front(*lost.graph);
  return lost;
}

std::optional<std::size_t> GraphScheduler::in_flight(int rank) const {
  const auto it = running_.find(rank);
  if (it == running_.end()) return std::nullopt;
  return it->second;
}

int GraphScheduler::attempts(std::size_t graph) const {
  const auto it = attempts_.find(graph);
  return it == attempts_.end() ? 0 : it->second;
}

}  // namespace dnnbench
