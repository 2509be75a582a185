#pragma once
// Helpers for the reference unit tests: seeded data, inner products, a thread-count override
// and a naive direct convolution to check the fast one against.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "../support/graph_builder.hpp"
#include "reference/reference.hpp"

namespace dnnbench::testing {

// Deterministic values in [-1, 1) from a 64-bit LCG (Knuth's MMIX constants).
inline Dense seeded(std::vector<std::int64_t> dims, std::uint64_t seed) {
  Dense d(std::move(dims));
  std::uint64_t state = seed * 2654435761u + 1;
  for (auto& v : d.data) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v = static_cast<double>(state >> 11) / static_cast<double>(1ull << 53) * 2.0 - 1.0;
  }
  return d;
}

inline Dense dense(std::vector<std::int64_t> dims, std::vector<double> data) {
  Dense d(std::move(dims));
  d.data = std::move(data);
  return d;
}

// PointwiseParams of one op with every option unset (designated initializers would trip
// -Wmissing-field-initializers).
inline PointwiseParams pointwise(PointwiseOp op) {
  PointwiseParams p;
  p.op = op;
  return p;
}

inline double inner(const Dense& a, const Dense& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.data.size(); ++i) s += a.data[i] * b.data[i];
  return s;
}

// Sets DNNBENCH_REFERENCE_THREADS for its lifetime, restoring the old value after.
class ThreadsOverride {
 public:
  explicit ThreadsOverride(int threads) {
    if (const char* old = std::getenv(kName)) old_ = old;
    setenv(kName, std::to_string(threads).c_str(), 1);
  }
  ~ThreadsOverride() {
    if (old_) {
      setenv(kName, old_->c_str(), 1);
    } else {
      unsetenv(kName);
    }
  }
  ThreadsOverride(const ThreadsOverride&) = delete;
  ThreadsOverride& operator=(const ThreadsOverride&) = delete;

 private:
  static constexpr const char* kName = "DNNBENCH_REFERENCE_THREADS";
  std::optional<std::string> old_;
};

}  // namespace dnnbench::testing
