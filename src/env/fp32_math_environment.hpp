#pragma once
// --fp32-math strict promises fp32 arithmetic on fp32 data. NVIDIA's libraries can break that
// promise without saying so: on the H200, cuDNN 9.14's eng0 for fp32 matmul computes at TF32
// precision (normalized error 2.6e-4) with no numerical note to skip it by. NVIDIA_TF32_OVERRIDE=0,
// which cuDNN and cuBLAS read when they start, turns TF32 off in both (the same rows: 1.3e-7 and
// 0.0). So a strict run sets it before any provider starts, unless
// the user set it; the run's metadata shows it like every other library variable.
#include <string>

#include "session/run_options.hpp"

namespace dnnbench {

inline constexpr const char* kTf32OverrideVariable = "NVIDIA_TF32_OVERRIDE";

// What the math policy asks of the environment: the value NVIDIA_TF32_OVERRIDE should have, or
// "" to leave it alone (tf32 runs: their TF32 engines must keep TF32; a value the user set wins).
std::string tf32_override_for(Fp32Math math, const char* current_value);

// Sets NVIDIA_TF32_OVERRIDE as tf32_override_for says, in this process (and so in every child
// it starts: isolated rows, profiles). Call before the first provider is made.
void apply_fp32_math_environment(Fp32Math math);

}  // namespace dnnbench
