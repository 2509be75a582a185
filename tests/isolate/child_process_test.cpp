#include "isolate/child_process.hpp"
#include "isolate/stack_dump.hpp"

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
  ChildOptions options;
  options.stderr_tail_bytes = 64;
  const auto outcome =
      run_child_process(shell("printf '%05000d' 0 >&2; printf END >&2"), std::nullopt, options);
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

// A child that answers kStackDumpSignal (a shell playing dnnbench's isolated child) has its stack
// in the timeout's description; what it wrote before the stack stays in the tail.
TEST(ChildProcess, AskedAtTheDeadlineTheChildSaysWhereItWaited) {
  const std::string script =
      "trap 'printf \"== dnnbench: main thread stack\\n"
      "dnnbench(_ZN8dnnbench11PlanSession7measureERNS_12StoppingRuleEb+0x4c) [0x1]\\n"
      "== dnnbench: end of stack\\n\" >&2' USR2; echo before >&2; while :; do sleep 0.05; done";
  ChildOptions options;
  options.ask_for_stack = true;
  const auto outcome = run_child_process(shell(script), 0.3, options);
  EXPECT_EQ(outcome.end, ChildOutcome::End::timed_out);
  EXPECT_EQ(outcome.stack, "dnnbench::PlanSession::measure");
  EXPECT_NE(outcome.describe().find("it was waiting in: dnnbench::PlanSession::measure"), std::string::npos)
      << outcome.describe();
  EXPECT_NE(outcome.stderr_tail.find("before"), std::string::npos) << outcome.stderr_tail;
  EXPECT_EQ(outcome.stderr_tail.find("main thread stack"), std::string::npos) << outcome.stderr_tail;
}

TEST(StackDump, CompactStackDemanglesAndDropsArguments) {
  const std::string text =
      std::string("noise\n") + std::string(kStackBegin) +
      "/lib/x86_64-linux-gnu/libc.so.6(clock_nanosleep+0x65) [0x7f00]\n"
      "./dnnbench(+0x1308) [0x55b0]\n"
      "./dnnbench(_ZN8dnnbench11PlanSession7measureERNS_12StoppingRuleEb+0x4c) [0x55d0]\n" +
      std::string(kStackEnd);
  EXPECT_EQ(compact_stack(text), "clock_nanosleep < dnnbench+0x1308 < dnnbench::PlanSession::measure");
  EXPECT_EQ(compact_stack(text, 1), "clock_nanosleep");
  EXPECT_EQ(compact_stack("no stack here"), "");
  EXPECT_EQ(compact_stack(std::string(kStackBegin) + "libc.so.6(x+0x1) [0x1]\n"), "") << "no end marker";
}

TEST(ChildProcess, ReportsAProgramThatCannotStart) {
  const auto outcome = run_child_process({"/nonexistent/dnnbench"}, std::nullopt);
  EXPECT_EQ(outcome.end, ChildOutcome::End::exited);
  EXPECT_EQ(outcome.exit_status, 127);
  EXPECT_NE(outcome.stderr_tail.find("cannot execute"), std::string::npos);
}

// A worker played by a shell: one line in, one line out, until its stdin closes.
TEST(WorkerProcess, AnswersRequestsUntilItsStdinCloses) {
  WorkerProcess worker(shell("while read line; do echo \"got $line\"; done"), {});
  const auto first = worker.request("a", 5.0);
  ASSERT_TRUE(first.line) << first.outcome.describe();
  EXPECT_EQ(*first.line, "got a");
  const auto second = worker.request("b c", 5.0);
  ASSERT_TRUE(second.line) << second.outcome.describe();
  EXPECT_EQ(*second.line, "got b c");
  EXPECT_TRUE(worker.running());
  worker.close();
  EXPECT_FALSE(worker.running());
}

// A dead worker's message must show what it wrote in the request it died in, not its whole life.
TEST(WorkerProcess, TheStderrTailIsThatOfTheRequest) {
  WorkerProcess worker(shell("while read line; do echo \"working on $line\" >&2; "
                             "if [ \"$line\" = die ]; then kill -SEGV $$; fi; echo done; done"),
                       {});
  const auto first = worker.request("one", 5.0);
  ASSERT_TRUE(first.line) << first.outcome.describe();
  EXPECT_NE(first.outcome.stderr_tail.find("working on one"), std::string::npos) << first.outcome.stderr_tail;
  const auto died = worker.request("die", 5.0);
  EXPECT_FALSE(died.line);
  EXPECT_EQ(died.outcome.end, ChildOutcome::End::signaled);
  EXPECT_EQ(died.outcome.signal, SIGSEGV);
  EXPECT_NE(died.outcome.stderr_tail.find("working on die"), std::string::npos) << died.outcome.stderr_tail;
  EXPECT_EQ(died.outcome.stderr_tail.find("working on one"), std::string::npos) << died.outcome.stderr_tail;
  EXPECT_FALSE(worker.running());
}

TEST(WorkerProcess, AWorkerThatEndsWithoutReplyingIsReported) {
  WorkerProcess worker(shell("read line; exit 0"), {});
  const auto reply = worker.request("x", 5.0);
  EXPECT_FALSE(reply.line);
  EXPECT_EQ(reply.outcome.end, ChildOutcome::End::exited);
  EXPECT_EQ(reply.outcome.exit_status, 0);
}

// The deadline is per request (a worker's life is longer than it), and at the deadline the worker
// is asked for its stack and its whole group is killed, as run_child_process does.
TEST(WorkerProcess, TheDeadlineIsPerRequest) {
  const std::string script =
      "trap 'printf \"== dnnbench: main thread stack\\n"
      "dnnbench(_ZN8dnnbench11PlanSession7measureERNS_12StoppingRuleEb+0x4c) [0x1]\\n"
      "== dnnbench: end of stack\\n\" >&2' USR2; "
      "while read line; do if [ \"$line\" = hang ]; then sleep 30 & while :; do sleep 0.05; done; fi; "
      "sleep 0.2; echo done; done";
  ChildOptions options;
  options.ask_for_stack = true;
  WorkerProcess worker(shell(script), options);
  for (int i = 0; i < 3; ++i) {  // 0.6 s in all, past one deadline of 0.5 s
    const auto reply = worker.request("work", 0.5);
    ASSERT_TRUE(reply.line) << reply.outcome.describe();
  }
  const auto hung = worker.request("hang", 0.5);
  EXPECT_FALSE(hung.line);
  EXPECT_EQ(hung.outcome.end, ChildOutcome::End::timed_out);
  EXPECT_EQ(hung.outcome.stack, "dnnbench::PlanSession::measure");
  EXPECT_NE(hung.outcome.describe().find("0.5 s timeout"), std::string::npos) << hung.outcome.describe();
  EXPECT_FALSE(worker.running());
}

// A worker that died between requests: the next request learns it without the parent dying of
// SIGPIPE.
TEST(WorkerProcess, ARequestToADeadWorkerReportsItsEnd) {
  WorkerProcess worker(shell("read line; echo done; exit 4"), {});
  ASSERT_TRUE(worker.request("x", 5.0).line);
  const auto reply = worker.request("y", 5.0);
  EXPECT_FALSE(reply.line);
  EXPECT_EQ(reply.outcome.end, ChildOutcome::End::exited);
  EXPECT_EQ(reply.outcome.exit_status, 4);
}

// The start is not a request's: a worker that takes 0.6 s to start, then answers in 0.1 s, is in
// time for a 0.5 s deadline; lines a library printed before the ready line are dropped.
TEST(WorkerProcess, TheStartIsWaitedForApartFromTheDeadline) {
  WorkerProcess worker(
      shell("echo banner; sleep 0.6; echo READY; while read line; do sleep 0.1; echo \"got $line\"; done"),
      {});
  const auto ready = worker.wait_until_ready("READY", 10.0);
  ASSERT_TRUE(ready.line) << ready.outcome.describe();
  EXPECT_EQ(*ready.line, "READY");
  const auto reply = worker.request("a", 0.5);
  ASSERT_TRUE(reply.line) << reply.outcome.describe();
  EXPECT_EQ(*reply.line, "got a");
}

TEST(WorkerProcess, AWorkerThatNeverGetsReadyIsKilledAtTheStartLimit) {
  WorkerProcess worker(shell("echo not yet; sleep 30"), {});
  const auto ready = worker.wait_until_ready("READY", 0.3);
  EXPECT_FALSE(ready.line);
  EXPECT_EQ(ready.outcome.end, ChildOutcome::End::timed_out);
  EXPECT_TRUE(ready.outcome.starting);
  EXPECT_NE(ready.outcome.describe().find("did not start within 0.3 s"), std::string::npos)
      << ready.outcome.describe();
  EXPECT_FALSE(worker.running());
}

}  // namespace
}  // namespace dnnbench
