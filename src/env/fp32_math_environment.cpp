#include "env/fp32_math_environment.hpp"

#include <cstdlib>

namespace dnnbench {

std::string tf32_override_for(Fp32Math math, const char* current_value) {
  if (math != Fp32Math::strict || current_value != nullptr) return "";
  return "0";
}

void apply_fp32_math_environment(Fp32Math math) {
  const auto value = tf32_override_for(math, std::getenv(kTf32OverrideVariable));
  if (!value.empty()) ::setenv(kTf32OverrideVariable, value.c_str(), 0);
}

}  // namespace dnnbench
