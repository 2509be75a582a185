#include "tensor/dtype.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace dnnbench {
namespace {

TEST(DataType, ParsesHipdnnNamesAndAliases) {
  EXPECT_EQ(parse_dtype("float"), DataType::f32);
  EXPECT_EQ(parse_dtype("half"), DataType::f16);
  EXPECT_EQ(parse_dtype("bfloat16"), DataType::bf16);
  EXPECT_EQ(parse_dtype("double"), DataType::f64);
  EXPECT_EQ(parse_dtype("int8"), DataType::i8);
  EXPECT_EQ(parse_dtype("int32"), DataType::i32);
  EXPECT_EQ(parse_dtype("uint8"), DataType::u8);
  EXPECT_EQ(parse_dtype("fp8_e4m3"), DataType::fp8_e4m3);
  EXPECT_EQ(parse_dtype("unset"), DataType::unset);
  EXPECT_FALSE(parse_dtype("float17").has_value());
  EXPECT_EQ(dtype_name(DataType::f16), "half");
  EXPECT_EQ(dtype_size(DataType::bf16), 2u);
  EXPECT_FALSE(dtype_has_storage(DataType::fp8_e4m3));
}

TEST(DataType, HalfRoundTripsEveryFiniteValue) {
  for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
    const auto h = static_cast<std::uint16_t>(bits);
    const float f = half_to_float(h);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(half_to_float(float_to_half(f))));
      continue;
    }
    ASSERT_EQ(float_to_half(f), h) << "bits " << bits;
  }
}

TEST(DataType, HalfRoundsToNearestEvenAndOverflowsToInf) {
  EXPECT_EQ(half_to_float(float_to_half(1.0f + 1.0f / 4096)), 1.0f);                // below half an ulp
  EXPECT_EQ(half_to_float(float_to_half(1.0f + 3.0f / 2048)), 1.0f + 2.0f / 1024);  // tie to even
  EXPECT_TRUE(std::isinf(half_to_float(float_to_half(70000.0f))));
  EXPECT_EQ(half_to_float(float_to_half(65504.0f)), 65504.0f);
  EXPECT_EQ(half_to_float(float_to_half(5.9604645e-8f)), 5.9604645e-8f);  // smallest subnormal
  EXPECT_EQ(half_to_float(float_to_half(1e-9f)), 0.0f);
}

TEST(DataType, Bf16RoundsToNearestEven) {
  EXPECT_EQ(bf16_to_float(float_to_bf16(1.0f)), 1.0f);
  EXPECT_EQ(bf16_to_float(float_to_bf16(1.0f + 1.0f / 256)), 1.0f);  // tie to even
  EXPECT_EQ(bf16_to_float(float_to_bf16(1.0f + 3.0f / 256)), 1.0f + 4.0f / 256);
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(DataType, IntegersSaturateAndRound) {
  EXPECT_EQ(round_to(DataType::i8, 300), 127);
  EXPECT_EQ(round_to(DataType::i8, -300), -128);
  EXPECT_EQ(round_to(DataType::u8, -3), 0);
  EXPECT_EQ(round_to(DataType::i32, 2.5), 2);  // nearest even
  EXPECT_EQ(round_to(DataType::f64, 0.1), 0.1);
  EXPECT_EQ(round_to(DataType::f32, 0.1), static_cast<double>(0.1f));
}

}  // namespace
}  // namespace dnnbench
