#pragma once
// Compiled plans kept on disk between runs. cuDNN's runtime-compiled engines (behaviour note
// RUNTIME_COMPILATION) compile their kernels when the plan is finalized: 0.5–30 s per plan on the
// H200, and at default settings 103 s of a 196 s ResNet-50 suite,
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
#include <utility>

namespace dnnbench {

struct CachedPlan {
  std::string blob;         // the library's serialized plan
  double compile_ms = 0;    // what building it cost when it was stored
  std::string created_utc;  // when it was stored
};

// A key claimed for compiling, for as long as this object lives: while one process compiles a
// plan, others that want it (a suite's compile-ahead children and the row that needs the plan; MPI
// ranks that share a cache folder) wait for its record instead of compiling it a second time. The
// claim is a lock file beside the record, created exclusively, holding "pid host". A lock whose
// process is gone (on this host), or older than an hour, is stale and taken over.
class CompileClaim {
 public:
  CompileClaim() = default;  // holds nothing
  explicit CompileClaim(std::filesystem::path lock) : lock_(std::move(lock)) {}
  CompileClaim(CompileClaim&& other) noexcept : lock_(std::exchange(other.lock_, {})) {}
  CompileClaim& operator=(CompileClaim&& other) noexcept;
  CompileClaim(const CompileClaim&) = delete;
  CompileClaim& operator=(const CompileClaim&) = delete;
  ~CompileClaim() { release(); }
  bool held() const { return !lock_.empty(); }
  void release();

 private:
  std::filesystem::path lock_;
};

struct ClaimOutcome {
  CompileClaim claim;      // not held: no cache, or the wait ran out (compile anyway, unclaimed)
  bool contended = false;  // another process held the key when asked
  double waited_ms = 0;    // spent waiting for another process's claim to end
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
  // Claims `key` for compiling. While another live process holds it, waits (polling) up to
  // `max_wait_s` or until a stop is asked for; the caller then looks for the record again before
  // compiling (the other process has usually stored it).
  ClaimOutcome claim(const std::string& key, double max_wait_s) const;

 private:
  std::optional<std::filesystem::path> folder_;
};

}  // namespace dnnbench
