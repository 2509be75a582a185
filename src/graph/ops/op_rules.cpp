#include "graph/ops/op_rules.hpp"

#include <algorithm>
#include <iterator>

#include "graph/ops/common.hpp"

namespace dnnbench {
namespace {

// Every op family this tool executes; a node whose type is not here parses as unsupported.
constexpr const OpRules* kAllRules[] = {
    &kConvFwdRules,
    &kConvBwdDataRules,
    &kConvBwdWeightsRules,
    &kMatmulRules,
    &kPointwiseRules,
    &kBatchnormInferenceRules,
    &kBatchnormInferenceVarianceExtRules,
    &kBatchnormTrainingRules,
    &kBatchnormBackwardRules,
    &kLayernormRules,
    &kRmsnormRules,
    &kReductionRules,
    &kResampleRules,
    &kSdpaFwdRules,
    &kSdpaBwdRules,
};

// hipDNN's NodeAttributes union (hipdnn_sdk data_objects, graph.fbs).
constexpr std::string_view kHipdnnNodeTypes[] = {
    "BatchnormInferenceAttributes",
    "BatchnormInferenceAttributesVarianceExt",
    "PointwiseAttributes",
    "BatchnormBackwardAttributes",
    "BatchnormAttributes",
    "ConvolutionFwdAttributes",
    "ConvolutionBwdAttributes",
    "ConvolutionWrwAttributes",
    "MatmulAttributes",
    "SdpaAttributes",
    "SdpaBackwardAttributes",
    "LayernormAttributes",
    "LayernormBackwardAttributes",
    "RMSNormAttributes",
    "RMSNormBackwardAttributes",
    "BlockScaleDequantizeAttributes",
    "BlockScaleQuantizeAttributes",
    "CustomOpAttributes",
    "ReductionAttributes",
    "ResampleFwdAttributes",
};

}  // namespace

const OpRules* find_op_rules(std::string_view type) {
  for (const OpRules* rules : kAllRules)
    if (rules->type == type) return rules;
  return nullptr;
}

std::span<const std::string_view> hipdnn_node_types() {
  return kHipdnnNodeTypes;
}

bool is_hipdnn_node_type(std::string_view type) {
  return std::find(std::begin(kHipdnnNodeTypes), std::end(kHipdnnNodeTypes), type) !=
         std::end(kHipdnnNodeTypes);
}

std::vector<std::string> op_family_names() {
  std::vector<std::string> names;
  for (const OpRules* rules : kAllRules) {
    std::string name(op_kind_name(rules->kind));
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
  }
  return names;
}

}  // namespace dnnbench
