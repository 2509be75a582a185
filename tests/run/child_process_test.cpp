#include "run/child_process.hpp"

#include <gtest/gtest.h>

#include <csignal>

namespace dnnbench {
namespace {

std::vector<std::string> shell(const std::string& script) {
  return {"/bin/sh", "-c", script};
}

TEST(ChildProcess, ReportsTheExitStatusAndTheStderrTail) {
  const auto outcome = run_child_process(shell("echo first >&2; echo last >&2; exit 3"), std::nullopt);
  EXPECT_EQ(outcome.end, ChildOutcome::End::exited);
  EXPECT_EQ(outcome.exit_status, 3);
  EXPECT_EQ(outcome.stderr_tail, "first\nlast\n");
  EXPECT_EQ(outcome.describe(), "exited with status 3");
}

TEST(ChildProcess, KeepsOnlyTheTail) {
  const auto outcome = run_child_process(shell("printf '%05000d' 0 >&2; printf END >&2"), std::nullopt, 64);
  EXPECT_EQ(outcome.stderr_tail.size(), 64u);
  EXPECT_TRUE(outcome.stderr_tail.ends_with("END"));
}

TEST(ChildProcess, ReportsTheSignalThatKilledIt) {
  const auto outcome = run_child_process(shell("kill -SEGV $$"), std::nullopt);
  EXPECT_EQ(outcome.end, ChildOutcome::End::signaled);
  EXPECT_EQ(outcome.signal, SIGSEGV);
  EXPECT_NE(outcome.describe().find("signal 11"), std::string::npos) << outcome.describe();
}

TEST(ChildProcess, KillsTheWholeGroupAtTheDeadline) {
  // The grandchild `sleep` holds stderr open: only a group kill ends the wait.
  const auto outcome = run_child_process(shell("sleep 30 & sleep 30"), 0.2);
  EXPECT_EQ(outcome.end, ChildOutcome::End::timed_out);
  EXPECT_NE(outcome.describe().find("0.2 s timeout"), std::string::npos) << outcome.describe();
}

TEST(ChildProcess, ReportsAProgramThatCannotStart) {
  const auto outcome = run_child_process({"/nonexistent/dnnbench"}, std::nullopt);
  EXPECT_EQ(outcome.end, ChildOutcome::End::exited);
  EXPECT_EQ(outcome.exit_status, 127);
  EXPECT_NE(outcome.stderr_tail.find("cannot execute"), std::string::npos);
}

}  // namespace
}  // namespace dnnbench
