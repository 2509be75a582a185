#pragma once
// Element data types: names as hipDNN files spell them, sizes, and scalar conversion.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace dnnbench {

enum class DataType { f32, f16, bf16, f64, i8, u8, i32, i64, boolean, fp8_e4m3, fp8_e5m2, unset };

// Parses the hipDNN spelling ("float", "half", "bfloat16", ...); nullopt when unknown.
std::optional<DataType> parse_dtype(std::string_view name);
// The hipDNN spelling of a type ("float", "half", ...).
std::string_view dtype_name(DataType type);
// Bytes per element; 0 for `unset`.
std::size_t dtype_size(DataType type);
bool dtype_is_floating(DataType type);
// True when dnnbench can store, fill and compare tensors of this type.
bool dtype_has_storage(DataType type);
// A byte that, repeated, makes every element of `type` a NaN: 0xFF for the IEEE-like floats and
// both fp8 formats (all-ones exponent, non-zero mantissa). nullopt for integers, which have none.
// It lets device memory be poisoned by a memset instead of an upload.
std::optional<unsigned char> nan_fill_byte(DataType type);
// The list of storable types, for error messages ("expected one of ...").
std::string_view storable_dtype_list();

float half_to_float(std::uint16_t bits);
std::uint16_t float_to_half(float value);  // round to nearest even
float bf16_to_float(std::uint16_t bits);
std::uint16_t float_to_bf16(float value);  // round to nearest even

// Reads one element of `type` at `p` as a double.
// fp8 as the OCP formats cuDNN, cuBLASLt and PyTorch use: E4M3 "fn" (bias 7, no infinities,
// S.1111.111 is NaN, largest 448) and E5M2 (bias 15, IEEE-like infinities and NaNs, largest
// 57344). Encoding rounds to nearest even and saturates to the largest finite value (what the
// CUDA conversions do with __NV_SATFINITE); NaN stays NaN.
float fp8_e4m3_to_float(std::uint8_t bits);
std::uint8_t float_to_fp8_e4m3(float value);
float fp8_e5m2_to_float(std::uint8_t bits);
std::uint8_t float_to_fp8_e5m2(float value);

double load_element(DataType type, const std::byte* p);
// Writes `value` rounded (floats) or saturated and rounded (integers) into `p`.
void store_element(DataType type, std::byte* p, double value);
// `value` as it would read back after store_element (the representable neighbour).
double round_to(DataType type, double value);

}  // namespace dnnbench
