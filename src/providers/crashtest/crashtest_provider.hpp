#pragma once
// The `crashtest` provider: a test double that fails on request, for the isolation tests
// (docs/reliability.md). Built only with -DDNNBENCH_TEST_PROVIDERS=ON (the default and debug
// presets, which the tests use; never the release preset) and never in the default provider set.
// Engines, in this order:
//   ok     the reference implementation (right answers)
//   segv   raises SIGSEGV in its first execution
//   abort  calls std::abort() in its first execution
//   hang   sleeps forever in its first execution (for --timeout-s)
//   throw  throws in its first execution: an `error` row from a process that goes on
// DNNBENCH_CRASHTEST_GRAPHS=NAME,NAME (graph names) limits the failures to those graphs; the
// failing engines of any other graph run as `ok`. A test of a suite can so fail in one graph only.
// DNNBENCH_CRASHTEST_BUILD_AHEAD=FOLDER makes `ok` a slow build done ahead (distribute/build_ahead.hpp):
// build_ahead() writes the marker FOLDER/<graph>.<engine>.<pid>, and a row's build() waits (up to
// 20 s) for its graph's marker, as a row waits for a compile-ahead child's claim.
// DNNBENCH_CRASHTEST_SLOWDOWN=FACTOR (e.g. 1.10) plants a known slowdown for `compare`'s tests:
// every execution spins until it has taken FACTOR times the reference's own execution, in the
// graphs of DNNBENCH_CRASHTEST_GRAPHS when that is set, else in every graph.
// DNNBENCH_CRASHTEST_SPIN_MS=MS makes every execution last MS ms from its start (times the
// slowdown), whatever the reference took below that: a wall-clock deadline that a loaded
// machine's slower arithmetic does not move, so a test's planted change is the only change.
// DNNBENCH_CRASHTEST_STICKY=1 makes `throw` lose the device for the rest of its process, as a
// CUDA kernel's illegal address does (Provider::device_lost), for the suite's handling of it.
// DNNBENCH_CRASHTEST_STICKY=quiet loses it the same way without throwing: the row ends well.
// It decorates the reference provider rather than duplicating it: a test double, not a library.
#include <memory>

#include "providers/provider.hpp"

namespace dnnbench {

std::unique_ptr<Provider> make_crashtest_provider();

}  // namespace dnnbench
