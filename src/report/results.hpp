#pragma once
// The results model: what a run produced. Runners fill it; sinks (console, JSON) only read it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "measure/stats.hpp"

namespace dnnbench {

enum class RowStatus { success, error, skipped };
std::string_view row_status_name(RowStatus status);

// How a row's samples were taken.
struct TimingInfo {
  // "host-per-execution": one execute + synchronize per sample, monotonic clock;
  // "device-events-batched(N per sample)": N back-to-back executions between two device events.
  std::string method;
  std::int64_t batch = 1;  // executions per sample
  std::string rule;        // stopping rule name
  bool converged = false;
  std::int64_t warmup = 0;         // untimed executions before sampling
  double elapsed_ms = 0;           // time inside timed regions
  std::vector<double> samples_ms;  // kept only with --save-samples
};

struct OutputCheck {
  std::string tensor;  // tensor name
  bool passed = true;
  double max_abs_diff = 0, max_rel_diff = 0, norm_rel_error = 0;
  std::int64_t mismatches = 0, nonfinite = 0;
  std::string first_mismatch;
  double rtol = 0, atol = 0;
  std::string tolerance_basis;
};

struct Correctness {
  bool passed = true;
  double max_abs_diff = 0, max_rel_diff = 0, norm_rel_error = 0;  // worst over outputs
  double rtol = 0, atol = 0;                                      // of the worst output
  std::string reference;                                          // which reference judged it
  std::vector<OutputCheck> outputs;
};

struct RowResult {
  std::string provider;
  std::optional<std::string> engine_id, engine_name;
  std::vector<std::string> engine_notes;
  RowStatus status = RowStatus::success;
  std::optional<std::string> skip_reason, error_message;
  std::optional<std::string> plan_name;
  std::vector<std::string> plan_notes;
  std::optional<double> cpu_build_time_ms, bind_time_ms;
  std::optional<std::int64_t> workspace_bytes;
  std::optional<Stats> host_stats, gpu_kernel_stats;
  std::optional<TimingInfo> timing;
  double analytical_flops = 0, analytical_io_bytes = 0;
  std::optional<Correctness> correctness;

  bool passed() const { return status == RowStatus::success && correctness && correctness->passed; }
  bool validation_failed() const {
    return status == RowStatus::success && correctness && !correctness->passed;
  }
};

struct GraphResult {
  std::string graph_name, graph_path;
  bool ok = true;  // false: the graph failed to load or validate
  std::optional<std::string> error_message;
  double analytical_flops = 0, analytical_io_bytes = 0;
  std::vector<RowResult> results;
};

struct Summary {
  std::int64_t graphs = 0, graph_errors = 0, rows = 0, passed = 0, failed = 0, skipped = 0, errors = 0;
};

struct SuiteResult {
  bool complete = false;
  nlohmann::json metadata = nlohmann::json::object();
  std::vector<GraphResult> graphs;
  Summary summary() const;
};

// Exit code of a run: 3 any validation failure; else 1 any error row or graph; else 0.
int exit_code_for(const SuiteResult& suite);

}  // namespace dnnbench
