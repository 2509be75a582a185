// The widened tolerances: Winograd engines and the fp32-accumulating CUDA reference.
#include <gtest/gtest.h>

#include "tensor/compare.hpp"

namespace dnnbench {
namespace {

TEST(Tolerance, WinogradWidensByTheDocumentedFactor) {
  const auto base = default_tolerance(DataType::f32, 576);
  const auto wide = winograd_tolerance(base);
  EXPECT_DOUBLE_EQ(wide.rtol, base.rtol * kWinogradErrorFactor);
  EXPECT_DOUBLE_EQ(wide.atol, base.atol * kWinogradErrorFactor);
  EXPECT_NE(wide.basis.find("Winograd"), std::string::npos) << wide.basis;
}

// The failure that motivated it: one element 3e-5 relative off on an fp32 Winograd engine fails
// the fp32 default and passes the Winograd tolerance; an element 1e-3 off still fails.
TEST(Tolerance, WinogradAdmitsTransformErrorButNotWrongResults) {
  Dense ref({2}), out({2});
  ref.data = {1.0, 2.0};
  out.data = {1.0 + 3e-5, 2.0};
  const auto base = default_tolerance(DataType::f32, 64);  // |diff| <= 1e-5 + 1e-5 |ref|
  EXPECT_FALSE(compare_values(out, ref, base).passed);
  EXPECT_TRUE(compare_values(out, ref, winograd_tolerance(base)).passed);
  out.data = {1.0 + 1e-3, 2.0};
  EXPECT_FALSE(compare_values(out, ref, winograd_tolerance(base)).passed);
}

TEST(Tolerance, Fp32ReferenceAddsFp32DefaultGrowingWithTheReductionLength) {
  const auto fp32 = default_tolerance(DataType::f32, 4608);
  const auto half = default_tolerance(DataType::f16, 4608);
  const auto judged = with_fp32_reference(half, 4608);
  EXPECT_DOUBLE_EQ(judged.rtol, half.rtol + fp32.rtol);
  // The reference's sequential sum: fp32's base atol (1e-5) times n / 64, not sqrt(n / 64).
  EXPECT_DOUBLE_EQ(judged.atol, half.atol + 1e-5 * 4608 / 64);
  const auto fp32_judged = with_fp32_reference(fp32, 4608);
  EXPECT_DOUBLE_EQ(fp32_judged.rtol, 2 * fp32.rtol);
  EXPECT_NE(fp32_judged.basis.find("sequential fp32 sums"), std::string::npos) << fp32_judged.basis;
  EXPECT_DOUBLE_EQ(with_fp32_reference(fp32, 8).atol, fp32.atol + 1e-5) << "at least the base";
}

}  // namespace
}  // namespace dnnbench
