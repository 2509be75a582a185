#include "graph/ops/op_rules.hpp"

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
    &kLayernormRules,
    &kRmsnormRules,
    &kReductionRules,
    &kResampleRules,
};

}  // namespace

const OpRules* find_op_rules(std::string_view type) {
  for (const OpRules* rules : kAllRules)
    if (rules->type == type) return rules;
  return nullptr;
}

}  // namespace dnnbench
