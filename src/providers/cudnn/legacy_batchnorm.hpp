#pragma once
// cuDNN's legacy batch-norm API (cudnnBatchNormalizationForwardTrainingEx, ...BackwardEx) as one
// more engine of the cuDNN provider. Frameworks call it, not the graph API, for batch norm
// (PyTorch 2.11's ResNet-50 AMP step: 53 forward and 53 backward calls, no graph-API batch
// norm), and its kernels are not the graph API's: without it, a captured program's batch norms
// would be timed on kernels the program never ran. Its one knob is the legacy mode; its
// "heuristic" plan is the mode PyTorch picks (SPATIAL_PERSISTENT for channels-last data, SPATIAL
// otherwise), the only choice the legacy API leaves to its caller.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.hpp"
#include "providers/cudnn/backend.hpp"
#include "providers/provider.hpp"

namespace dnnbench::cudnn {

inline constexpr std::string_view kLegacyBatchnormEngine = "legacy_bn";

enum class LegacyBnMode { spatial, persistent };

// The engine for a graph the legacy API computes: one batch-norm training node (batch
// statistics, no running averages) or one batch-norm backward node, 4-D or 5-D data in f32, f16
// or bf16 with fp32 per-channel tensors. nullopt, with `why` set, otherwise.
std::optional<EngineInfo> legacy_batchnorm_engine(const Graph& graph, std::string& why);
// The mode PyTorch calls the legacy API with for this graph's data.
LegacyBnMode framework_mode(const Graph& graph);
PlanSpec legacy_spec(LegacyBnMode mode);
// Both modes, the framework's first.
std::vector<PlanSpec> legacy_plan_space(const Graph& graph);
// The mode `spec` names (the framework's where it names none). Throws Unsupported when `spec` is
// not a legacy plan.
LegacyBnMode legacy_mode(const Graph& graph, const PlanSpec& spec);

// Sizes its workspace and reserve space with cuDNN (Unsupported when cuDNN refuses the mode for
// these tensors) and allocates them, with the running averages the forward call updates (the
// graph has none; the framework passes them, so their traffic is timed as it ran).
std::unique_ptr<Plan> build_legacy_batchnorm(const Graph& graph, LegacyBnMode mode,
                                             std::shared_ptr<const Handle> handle);

}  // namespace dnnbench::cudnn
