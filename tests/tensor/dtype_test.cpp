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
  EXPECT_TRUE(dtype_has_storage(DataType::fp8_e4m3));
  EXPECT_FALSE(dtype_has_storage(DataType::i64));
}

// Device outputs are poisoned by a memset of this byte: every element it makes must read NaN.
TEST(DataType, NanFillByteMakesANanOfEveryFloatAndNothingForIntegers) {
  for (auto type : {DataType::f32, DataType::f16, DataType::bf16, DataType::f64, DataType::fp8_e4m3,
                    DataType::fp8_e5m2}) {
    const auto byte = nan_fill_byte(type);
    ASSERT_TRUE(byte.has_value()) << dtype_name(type);
    std::byte element[8];
    for (auto& b : element) b = static_cast<std::byte>(*byte);
    EXPECT_TRUE(std::isnan(load_element(type, element))) << dtype_name(type);
  }
  for (auto type : {DataType::i8, DataType::u8, DataType::i32, DataType::i64, DataType::boolean})
    EXPECT_FALSE(nan_fill_byte(type).has_value()) << dtype_name(type);
}

TEST(DataType, Fp8DecodesTheOcpFormats) {
  EXPECT_EQ(fp8_e4m3_to_float(0x38), 1.0f);
  EXPECT_EQ(fp8_e4m3_to_float(0xc0), -2.0f);
  EXPECT_EQ(fp8_e4m3_to_float(0x7e), 448.0f);                // the largest finite E4M3
  EXPECT_EQ(fp8_e4m3_to_float(0x01), std::ldexp(1.0f, -9));  // the smallest subnormal
  EXPECT_TRUE(std::isnan(fp8_e4m3_to_float(0x7f)));
  EXPECT_EQ(fp8_e5m2_to_float(0x3c), 1.0f);
  EXPECT_EQ(fp8_e5m2_to_float(0x7b), 57344.0f);
  EXPECT_TRUE(std::isinf(fp8_e5m2_to_float(0x7c)));
  EXPECT_TRUE(std::isnan(fp8_e5m2_to_float(0x7e)));
  EXPECT_EQ(fp8_e5m2_to_float(0x01), std::ldexp(1.0f, -16));
}

TEST(DataType, Fp8RoundTripsEveryCodeAndRoundsToNearestEvenSaturating) {
  for (std::uint32_t c = 0; c < 256; ++c) {
    const auto code = static_cast<std::uint8_t>(c);
    const float e4 = fp8_e4m3_to_float(code), e5 = fp8_e5m2_to_float(code);
    if (!std::isnan(e4)) {
      EXPECT_EQ(float_to_fp8_e4m3(e4), code) << c;
    }
    if (std::isfinite(e5)) {
      EXPECT_EQ(float_to_fp8_e5m2(e5), code) << c;
    }
  }
  // Ties go to the even code: 1.0625 lies between 1.0 (0x38) and 1.125 (0x39).
  EXPECT_EQ(float_to_fp8_e4m3(1.0625f), 0x38);
  EXPECT_EQ(float_to_fp8_e4m3(1.1875f), 0x3a);
  EXPECT_EQ(float_to_fp8_e4m3(1.07f), 0x39);
  EXPECT_EQ(float_to_fp8_e5m2(1.125f), 0x3c);
  EXPECT_EQ(float_to_fp8_e5m2(1.375f), 0x3e);
  // Beyond the largest finite value: saturated, never NaN or infinity; NaN stays NaN.
  EXPECT_EQ(float_to_fp8_e4m3(1000.0f), 0x7e);
  EXPECT_EQ(float_to_fp8_e4m3(-std::numeric_limits<float>::infinity()), 0xfe);
  EXPECT_EQ(float_to_fp8_e5m2(1e6f), 0x7b);
  EXPECT_TRUE(std::isnan(fp8_e4m3_to_float(float_to_fp8_e4m3(std::nanf("")))));
  EXPECT_TRUE(std::isnan(fp8_e5m2_to_float(float_to_fp8_e5m2(std::nanf("")))));
  EXPECT_EQ(round_to(DataType::fp8_e4m3, 0.3), 0.3125);
  EXPECT_EQ(float_to_fp8_e4m3(std::ldexp(1.0f, -11)), 0x00);  // under half the smallest subnormal
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
