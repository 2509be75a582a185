#pragma once
// parallel_for: splits [0, n) into contiguous chunks over the machine's cores. The reference
// uses it for its outer loops so that perf-sized graphs validate in seconds, and the output
// check (tensor/compare.cpp, HostTensor::to_dense) so that a row's check costs no more.
#include <cstdint>
#include <functional>

namespace dnnbench {

// Below this many elements one thread is faster than starting the others (an element-wise loop's
// threshold for calling parallel_for).
inline constexpr std::int64_t kParallelElements = 1 << 16;

// Calls body(begin, end) on disjoint chunks covering [0, n); returns when all are done.
// Exceptions thrown by a chunk are rethrown on the calling thread.
void parallel_for(std::int64_t n, const std::function<void(std::int64_t, std::int64_t)>& body);
// Worker threads used (hardware concurrency, or DNNBENCH_REFERENCE_THREADS when set).
int reference_threads();

}  // namespace dnnbench
