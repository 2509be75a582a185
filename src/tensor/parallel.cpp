#include "tensor/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace dnnbench {

int reference_threads() {
  if (const char* env = std::getenv("DNNBENCH_REFERENCE_THREADS")) {
    const int n = std::atoi(env);
    if (n > 0) return n;
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

void parallel_for(std::int64_t n, const std::function<void(std::int64_t, std::int64_t)>& body) {
  if (n <= 0) return;
  const std::int64_t threads = std::min<std::int64_t>(reference_threads(), n);
  if (threads <= 1) {
    body(0, n);
    return;
  }
  // A few chunks per thread so uneven chunk costs (e.g. padding borders) balance out.
  const std::int64_t chunks = std::min<std::int64_t>(n, threads * 4);
  std::atomic<std::int64_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto worker = [&] {
    for (std::int64_t c = next++; c < chunks; c = next++) {
      const std::int64_t begin = n * c / chunks, end = n * (c + 1) / chunks;
      try {
        body(begin, end);
      } catch (...) {
        std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::int64_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& thread : pool) thread.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace dnnbench
