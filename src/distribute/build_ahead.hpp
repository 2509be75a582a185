#pragma once
// Building ahead. cuDNN's runtime-compiled engines compile their kernels when a plan is built:
// 0.5–30 s a plan on the H200, 94 s of a 183 s ResNet-50 suite at default settings, while its
// GPU sat idle. A suite started with an empty
// compiled-plan cache therefore starts a few child processes (`--compile-ahead N`) that walk the
// same graphs, pick the same engines as the rows will, and compile those plans into the cache
// while the suite measures other rows. A row that reaches such a plan loads it from the cache, or
// waits for the child that is compiling it (the compile claim of providers/compiled_plan_cache.hpp)
// instead of compiling it a second time.
//
// With --oracle they also compile the oracle's candidate plans of those engines, each child its
// share of every row's plan space, so that a row's runtime-compiled candidates compile side by side.
//
// The children only compile and store: they time nothing and run no kernel, and what they find
// wrong is left for the row, which reports it. They exit when their graphs are done, or when the
// parent closes their stdin (the suite is over), and are killed if they do not.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "input/archive.hpp"
#include "input/inputs.hpp"
#include "isolate/child_process.hpp"
#include "isolate/child_protocol.hpp"
#include "session/run_options.hpp"

namespace dnnbench {

// The default --compile-ahead: a quarter of the host's cores, 1 to 4 (a compile is one core's
// work, and the measuring process and the GPU's driver keep theirs).
int default_compile_ahead_children();

// The children of one suite. None are started when no provider of `options` can build ahead
// (no GPU, or the compiled-plan cache is off) or `count` is 0.
class BuildAheadChildren {
 public:
  // `run_arguments`: the run's own arguments (after `run`), which each child re-reads
  // (isolate/child_protocol.hpp).
  BuildAheadChildren(const RunOptions& options, const std::vector<std::string>& run_arguments, int count);
  // Closes them: ends the children still compiling (the suite no longer needs their plans).
  ~BuildAheadChildren();
  BuildAheadChildren(const BuildAheadChildren&) = delete;
  BuildAheadChildren& operator=(const BuildAheadChildren&) = delete;
  std::size_t started() const { return children_.size(); }

 private:
  std::optional<ScopedTempDir> folder_;  // the children's requests; outlives them (declared first)
  std::vector<std::unique_ptr<WorkerProcess>> children_;
};

// A child's whole work (role build-ahead, part K of N): the K-th of every N graphs of `inputs`
// (of those `selected`, in suite order), each provider's row engines, their slow plans built into
// the cache; with --oracle also every graph's candidate plans j with j mod N = K - 1. Returns the
// exit code (0; what fails is the rows' to report).
int run_build_ahead_child(const std::vector<GraphInput>& inputs, const std::vector<bool>* selected,
                          const RunOptions& options, const BuildAheadPart& part);

}  // namespace dnnbench
