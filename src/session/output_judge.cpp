#include "session/output_judge.hpp"

#include <algorithm>
#include <cmath>

#include "reference/device_compare.hpp"

namespace dnnbench {
namespace {

bool has_note(const EngineInfo& engine, std::string_view note) {
  return std::find(engine.notes.begin(), engine.notes.end(), note) != engine.notes.end();
}

}  // namespace

bool uses_tf32_math(const EngineInfo& engine) {
  return has_note(engine, kTf32MathNote);
}

bool uses_winograd(const EngineInfo& engine) {
  return has_note(engine, kWinogradNote);
}

bool uses_reduced_precision(const EngineInfo& engine) {
  return has_note(engine, kReducedPrecisionNote);
}

OutputRules OutputRules::of(const RunOptions& options) {
  OutputRules r;
  r.rtol = options.rtol;
  r.atol = options.atol;
  r.host_copies = options.dump_tensors_dir.has_value();
  return r;
}

OutputRules OutputRules::of(const EngineInfo& engine, const RunOptions& options) {
  auto r = of(options);
  r.tf32_math = uses_tf32_math(engine);
  r.winograd = uses_winograd(engine);
  r.reduced_precision = uses_reduced_precision(engine);
  return r;
}

OutputJudge::OutputJudge(GraphData& data, DeviceKind device, OutputRules rules)
    : data_(&data), device_(device), rules_(std::move(rules)) {}

Correctness OutputJudge::checked_run(PlanInstance& instance) {
  instance.buffers().poison_outputs(instance.provider(), instance.stream());
  instance.execute();
  checked_ = check_current(instance);
  checked_bytes_.clear();
  if (compared_on_device_) return *checked_;  // the host copies were not fetched
  for (auto uid : data_->graph().output_uids()) {
    const auto& t = instance.buffers().host(uid);
    checked_bytes_[uid].assign(t.data(), t.data() + t.size_bytes());
  }
  return *checked_;
}

Correctness OutputJudge::check_current(PlanInstance& instance) {
  instance.publish_outputs();
  if (auto passed = compare_passing_outputs_on_device(instance.buffers())) return *passed;
  instance.buffers().fetch_outputs(instance.provider(), instance.stream());
  return compare_fetched_outputs(instance.buffers());
}

Correctness OutputJudge::recheck(PlanInstance& instance) {
  instance.publish_outputs();
  // On the device a second comparison costs about what a bitwise one would.
  if (auto passed = compare_passing_outputs_on_device(instance.buffers())) return *passed;
  auto& buffers = instance.buffers();
  buffers.fetch_outputs(instance.provider(), instance.stream());
  const bool same =
      checked_ && !checked_bytes_.empty() &&
      std::all_of(checked_bytes_.begin(), checked_bytes_.end(), [&](const auto& kv) {
        const auto& now = buffers.host(kv.first);
        return now.size_bytes() == kv.second.size() &&
               std::equal(kv.second.begin(), kv.second.end(), now.data(), now.data() + now.size_bytes());
      });
  return same ? *checked_ : compare_fetched_outputs(buffers);
}

Tolerance OutputJudge::tolerance_for(const TensorDesc& desc, ReferenceKind kind) const {
  const auto reduction = data_->cost().reduction_length;
  Tolerance tol = rules_.tf32_math ? tf32_math_tolerance(desc.dtype, reduction)
                                   : default_tolerance(desc.dtype, reduction);
  if (rules_.winograd) tol = winograd_tolerance(tol);
  if (rules_.reduced_precision) tol = reduced_precision_tolerance(tol, desc.dtype, reduction);
  if (kind == ReferenceKind::gpu_fp32) tol = with_fp32_reference(tol, reduction);
  if (rules_.rtol) tol.rtol = *rules_.rtol, tol.basis = "--rtol/--atol";
  if (rules_.atol) tol.atol = *rules_.atol, tol.basis = "--rtol/--atol";
  return tol;
}

std::optional<Correctness> OutputJudge::compare_passing_outputs_on_device(const PlanBuffers& buffers) {
  compared_on_device_ = false;
  if (device_ != DeviceKind::cuda || rules_.host_copies) return std::nullopt;
  const auto& graph = data_->graph();
  const ReferenceKind kind = data_->reference_kind_for(device_);
  std::vector<OutputComparison> comparisons;
  for (auto uid : graph.output_uids()) {
    const void* out = buffers.device_data(uid);
    const auto* ref = out ? data_->device_reference(kind, uid) : nullptr;
    if (!ref) return std::nullopt;
    auto tol = tolerance_for(graph.tensor(uid), kind);
    auto result = compare_on_device(out, graph.tensor(uid), *ref, tol);
    if (!result || !result->passed) return std::nullopt;
    comparisons.push_back({uid, std::move(*result), std::move(tol)});
  }
  compared_on_device_ = true;
  auto c = correctness_of(comparisons, kind);
  c.compared_on = "device";
  return c;
}

Correctness OutputJudge::correctness_of(const std::vector<OutputComparison>& comparisons,
                                        ReferenceKind kind) const {
  const auto& graph = data_->graph();
  Correctness c;
  c.reference = reference_kind_name(kind);
  double worst = -1;
  for (const auto& [uid, result, tol] : comparisons) {
    const auto& desc = graph.tensor(uid);
    OutputCheck o{desc.name,
                  result.passed,
                  result.max_abs_diff,
                  result.max_rel_diff,
                  result.norm_rel_error,
                  result.mismatches,
                  result.nonfinite,
                  result.first_mismatch,
                  tol.rtol,
                  tol.atol,
                  tol.basis};
    c.passed = c.passed && o.passed;
    c.max_abs_diff = std::max(c.max_abs_diff, o.max_abs_diff);
    c.max_rel_diff = std::max(c.max_rel_diff, o.max_rel_diff);
    if (o.norm_rel_error > worst || !std::isfinite(o.norm_rel_error)) {
      worst = o.norm_rel_error;
      c.norm_rel_error = o.norm_rel_error;
      c.rtol = o.rtol;
      c.atol = o.atol;
    }
    c.outputs.push_back(std::move(o));
  }
  return c;
}

Correctness OutputJudge::compare_fetched_outputs(const PlanBuffers& buffers) {
  const auto& graph = data_->graph();
  const ReferenceKind kind = data_->reference_kind_for(device_);
  const auto& reference = data_->reference(kind);
  const bool user_tolerance = rules_.rtol || rules_.atol;
  std::vector<OutputComparison> comparisons;
  for (auto uid : graph.output_uids()) {
    const auto& desc = graph.tensor(uid);
    const Dense out = buffers.host(uid).to_dense();
    auto tol = tolerance_for(desc, kind);
    auto result = compare_values(out, reference.at(uid), tol);
    // An elementwise failure of finite values in a contraction gets its second chance: the
    // componentwise bound (tensor/compare.hpp), unless the user set the tolerance.
    if (!result.passed && result.nonfinite == 0 && !tol.max_norm_rel && !user_tolerance) {
      if (const Values* magnitude = data_->magnitude(kind)) {
        auto wider = componentwise_tolerance(tol, desc.dtype, data_->cost().reduction_length,
                                             kind == ReferenceKind::gpu_fp32);
        // Judged by the wider rule either way: a failure then names elements beyond even it.
        result = compare_values(out, reference.at(uid), wider, &magnitude->at(uid));
        tol = std::move(wider);
      }
    }
    comparisons.push_back({uid, std::move(result), std::move(tol)});
  }
  return correctness_of(comparisons, kind);
}

}  // namespace dnnbench
