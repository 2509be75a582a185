#pragma once
// The output check of one row: which tolerance each output is judged by (from the engine's notes
// and the options, decided once) and the comparison of a plan instance's outputs with the graph's
// reference, on the device where it can pass there, else on the host.
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "report/results.hpp"
#include "session/graph_data.hpp"
#include "session/plan_instance.hpp"
#include "session/run_options.hpp"
#include "tensor/compare.hpp"

namespace dnnbench {

// True when an engine's notes say it computes fp32 data in TF32.
bool uses_tf32_math(const EngineInfo& engine);
// True when an engine's notes say it convolves through Winograd transforms.
bool uses_winograd(const EngineInfo& engine);
// True when an engine's notes say it accumulates in a reduced precision.
bool uses_reduced_precision(const EngineInfo& engine);

// How outputs are judged.
struct OutputRules {
  bool tf32_math = false;            // fp32 outputs at the TF32 tolerance
  bool winograd = false;             // widened for Winograd transforms
  bool reduced_precision = false;    // widened for a reduced-precision accumulation
  std::optional<double> rtol, atol;  // --rtol/--atol: the user's, over every default
  bool host_copies = false;          // --dump-tensors: the host copies must hold what the plan wrote
  // The rules the engine's notes and the run's options say.
  static OutputRules of(const EngineInfo& engine, const RunOptions& options);
  // The default rules with the run's options (no engine notes).
  static OutputRules of(const RunOptions& options);
};

class OutputJudge {
 public:
  OutputJudge(GraphData& data, DeviceKind device, OutputRules rules = {});
  const OutputRules& rules() const { return rules_; }
  // Poisons the outputs, executes once, publishes and compares with the reference; remembers the
  // verdict (and, compared on the host, the output bytes) for recheck().
  Correctness checked_run(PlanInstance& instance);
  // Compares the outputs the last execution left (after publishing them) with the reference.
  Correctness check_current(PlanInstance& instance);
  // The same after the measurement's repeated executions; when every output is bit for bit what
  // the checked run left, the checked run's verdict stands without a second comparison (the
  // comparison of a perf-sized output costs a tenth of a second; a deterministic plan repeats
  // its bits).
  Correctness recheck(PlanInstance& instance);

 private:
  struct OutputComparison {
    std::int64_t uid;
    CompareResult result;
    Tolerance tolerance;
  };
  Tolerance tolerance_for(const TensorDesc& desc, ReferenceKind kind) const;
  Correctness correctness_of(const std::vector<OutputComparison>& comparisons, ReferenceKind kind) const;
  // Compares the outputs where they are, on the device (reference/device_compare.hpp); nullopt
  // unless every output could be compared there and passed: the host comparison then judges.
  std::optional<Correctness> compare_passing_outputs_on_device(const PlanBuffers& buffers);
  Correctness compare_fetched_outputs(const PlanBuffers& buffers);

  GraphData* data_;  // a pointer: a session's judge is replaced when its rules are
  DeviceKind device_;
  OutputRules rules_;
  std::map<std::int64_t, std::vector<std::byte>> checked_bytes_;
  std::optional<Correctness> checked_;
  bool compared_on_device_ = false;  // the last comparison ran on the device (host copies are stale)
};

}  // namespace dnnbench
