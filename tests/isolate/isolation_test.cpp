#include "isolate/isolation.hpp"

#include <gtest/gtest.h>

namespace dnnbench {
namespace {

TEST(Isolation, ModeNamesRoundTrip) {
  for (auto mode : {IsolationMode::none, IsolationMode::graph, IsolationMode::row})
    EXPECT_EQ(isolation_mode_from_name(isolation_mode_name(mode)), mode);
  EXPECT_FALSE(isolation_mode_from_name("process"));
}

TEST(Isolation, HostProvidersRunInProcessByDefault) {
  EXPECT_EQ(default_isolation({"reference"}), IsolationMode::none);
#ifdef DNNBENCH_HAVE_ONEDNN
  EXPECT_EQ(default_isolation({"onednn", "reference"}), IsolationMode::none);
#endif
}

// A hung kernel must not stall an isolated suite: children get a deadline derived from the caps
// when the user gives none, and it moves with them.
TEST(Isolation, DefaultChildTimeoutFollowsTheCaps) {
  RunOptions options;
  const double graph = default_child_timeout_s(options, IsolationMode::graph);
  const double row = default_child_timeout_s(options, IsolationMode::row);
  EXPECT_GT(row, 60 + 2.0);  // a row's caps (2 s of samples, 0.5 s of warm-up) plus allowances
  EXPECT_LT(row, 300);
  EXPECT_GT(graph, row);
  options.max_engines = 3;
  const double top3 = default_child_timeout_s(options, IsolationMode::graph);
  EXPECT_LT(top3, graph);
  options.adaptive.max_time_ms = 60000;
  EXPECT_GT(default_child_timeout_s(options, IsolationMode::graph), top3 + 3 * 57);
  options.oracle.enabled = true;
  options.oracle.max_seconds = 100;
  EXPECT_GT(default_child_timeout_s(options, IsolationMode::row), 100 + 60);
}

}  // namespace
}  // namespace dnnbench
