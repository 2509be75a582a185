#pragma once
// Compiled plans kept on disk between runs. cuDNN's runtime-compiled engines (behaviour note
// RUNTIME_COMPILATION) compile their kernels when the plan is finalized: 0.5–30 s per plan on the
// H200, and at default settings 103 s of a 196 s ResNet-50 suite (bench/RESULTS.md, session 10),
// where every other engine of the suite built in 9 ms all told. A library that can serialize such
// a plan stores it here the first time; later runs (another suite, a re-run, the oracle's re-timed
// plans) load it instead of compiling again. The record keeps the compile time measured when it
// was stored, so a row built from the cache still says what the compile cost (docs/methodology.md).
//
// One file per key, written to a temporary name and renamed, so concurrent runs (MPI ranks, a
// suite and its isolated children) never read half a record. A record that cannot be read, or
// whose key differs from the one asked for, is a miss, never an error.
#include <filesystem>
#include <optional>
#include <string>

namespace dnnbench {

struct CachedPlan {
  std::string blob;         // the library's serialized plan
  double compile_ms = 0;    // what building it cost when it was stored
  std::string created_utc;  // when it was stored
};

class CompiledPlanCache {
 public:
  // The folder DNNBENCH_PLAN_CACHE names ("off" or "0": no cache), else
  // $XDG_CACHE_HOME/dnnbench/plans, else $HOME/.cache/dnnbench/plans; no cache without either.
  static CompiledPlanCache from_environment();
  explicit CompiledPlanCache(std::optional<std::filesystem::path> folder) : folder_(std::move(folder)) {}

  bool enabled() const { return folder_.has_value(); }
  const std::optional<std::filesystem::path>& folder() const { return folder_; }
  // The record stored under `key`, or nullopt (no cache, no record, or a record that does not
  // read back whole with this key).
  std::optional<CachedPlan> find(const std::string& key) const;
  // Stores `plan` under `key`. Returns why it could not ("" when stored, or when there is no cache).
  std::string store(const std::string& key, const CachedPlan& plan) const;
  // The file a key is stored in (a hash of the key: keys are long and hold any character).
  std::filesystem::path path_for(const std::string& key) const;

 private:
  std::optional<std::filesystem::path> folder_;
};

}  // namespace dnnbench
