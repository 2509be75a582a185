#pragma once
// What differs between the conditions of two runs (device, clocks, library versions, options,
// cache mode, timing method), read from their results, for `compare`'s header.
#include <string>
#include <vector>

#include "report/results.hpp"

namespace dnnbench {

struct ConditionDifference {
  std::string condition;  // "device", "library cudnn", "option warmup", "timing method", ...
  std::string a, b;       // the values, as text ("-" when absent)
  // Times measured under the two conditions do not compare like for like (another device, cache
  // mode, timing method or meaning): `compare` exits 2 unless --allow-mismatch.
  bool invalidating = false;
  // The machine's state while measuring (other processes' load, the cpufreq governor,
  // oversubscription; metadata.host_conditions): the times may differ for reasons outside the
  // code. `compare` warns and exits 2 unless --allow-different-conditions.
  bool machine = false;
};

std::vector<ConditionDifference> condition_differences(const SuiteResult& a, const SuiteResult& b);
// The providers whose library versions differ between the runs (both ran them).
std::vector<std::string> providers_with_other_versions(const SuiteResult& a, const SuiteResult& b);

}  // namespace dnnbench
