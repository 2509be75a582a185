#pragma once
// Options of a run, resolved from the command line (cli/). run/ reads only this struct.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graph/validate.hpp"
#include "measure/stopping_rule.hpp"

namespace dnnbench {

struct RunOptions {
  std::vector<std::string> providers;  // empty: every provider built
  std::vector<std::string> engines;    // ids or names; empty: all, in the library's order
  std::int64_t warmup = 3;             // untimed executions before sampling
  std::optional<std::int64_t> iters;   // fixed sample count; unset: adaptive rule
  AdaptiveLimits adaptive;
  std::uint64_t seed = 42;
  std::optional<double> rtol, atol;  // override the per-dtype defaults
  std::optional<std::string> dump_tensors_dir;
  bool save_samples = false;
  ValidationLimits limits;
};

}  // namespace dnnbench
