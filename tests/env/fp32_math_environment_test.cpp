// What --fp32-math asks of NVIDIA_TF32_OVERRIDE: strict turns TF32 off in cuDNN and cuBLAS
// unless the user chose; tf32 leaves it alone.
#include "env/fp32_math_environment.hpp"

#include <gtest/gtest.h>

namespace dnnbench {
namespace {

TEST(Fp32MathEnvironment, StrictTurnsTf32OffUnlessTheUserChose) {
  EXPECT_EQ(tf32_override_for(Fp32Math::strict, nullptr), "0");
  EXPECT_EQ(tf32_override_for(Fp32Math::strict, "1"), "");  // the user's value wins (metadata shows it)
  EXPECT_EQ(tf32_override_for(Fp32Math::tf32, nullptr), "");
  EXPECT_EQ(tf32_override_for(Fp32Math::tf32, "0"), "");
}

}  // namespace
}  // namespace dnnbench
