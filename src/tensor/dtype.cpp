#include "tensor/dtype.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

namespace dnnbench {
namespace {

struct TypeName {
  DataType type;
  std::string_view name;
};
// First spelling of each type is the canonical one; the rest are accepted aliases.
constexpr TypeName kTypeNames[] = {
    {DataType::f32, "float"},         {DataType::f16, "half"},          {DataType::bf16, "bfloat16"},
    {DataType::f64, "double"},        {DataType::i8, "int8"},           {DataType::u8, "uint8"},
    {DataType::i32, "int32"},         {DataType::i64, "int64"},         {DataType::boolean, "boolean"},
    {DataType::fp8_e4m3, "fp8_e4m3"}, {DataType::fp8_e5m2, "fp8_e5m2"}, {DataType::unset, "unset"},
    {DataType::f32, "float32"},       {DataType::f16, "float16"},       {DataType::bf16, "bf16"},
    {DataType::f64, "float64"},       {DataType::boolean, "bool"},
};

}  // namespace

std::optional<DataType> parse_dtype(std::string_view name) {
  for (const auto& entry : kTypeNames)
    if (entry.name == name) return entry.type;
  return std::nullopt;
}

std::string_view dtype_name(DataType type) {
  for (const auto& entry : kTypeNames)
    if (entry.type == type) return entry.name;
  return "?";
}

std::size_t dtype_size(DataType type) {
  switch (type) {
    case DataType::f64:
    case DataType::i64:
      return 8;
    case DataType::f32:
    case DataType::i32:
      return 4;
    case DataType::f16:
    case DataType::bf16:
      return 2;
    case DataType::i8:
    case DataType::u8:
    case DataType::boolean:
    case DataType::fp8_e4m3:
    case DataType::fp8_e5m2:
      return 1;
    case DataType::unset:
      return 0;
  }
  return 0;
}

bool dtype_is_floating(DataType type) {
  switch (type) {
    case DataType::f32:
    case DataType::f16:
    case DataType::bf16:
    case DataType::f64:
    case DataType::fp8_e4m3:
    case DataType::fp8_e5m2:
      return true;
    default:
      return false;
  }
}

std::optional<unsigned char> nan_fill_byte(DataType type) {
  if (!dtype_is_floating(type)) return std::nullopt;
  return static_cast<unsigned char>(0xFF);
}

bool dtype_has_storage(DataType type) {
  switch (type) {
    case DataType::f32:
    case DataType::f16:
    case DataType::bf16:
    case DataType::f64:
    case DataType::i8:
    case DataType::u8:
    case DataType::i32:
    case DataType::fp8_e4m3:
    case DataType::fp8_e5m2:
      return true;
    default:
      return false;
  }
}

std::string_view storable_dtype_list() {
  return "float, half, bfloat16, double, int8, uint8, int32, fp8_e4m3, fp8_e5m2";
}

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t exponent = (h >> 10) & 0x1fu;
  std::uint32_t mantissa = h & 0x3ffu;
  std::uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);  // inf / nan
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {  // subnormal half: normalize
    int shift = 0;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      ++shift;
    }
    mantissa &= 0x3ffu;
    bits = sign | (static_cast<std::uint32_t>(113 - shift) << 23) | (mantissa << 13);
  }
  return std::bit_cast<float>(bits);
}

std::uint16_t float_to_half(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t abs = bits & 0x7fffffffu;
  if (abs >= 0x7f800000u)  // inf or nan (keep nan quiet and non-zero)
    return static_cast<std::uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  if (abs >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // rounds to >= 65520: inf
  if (abs < 0x38800000u) {               // below the smallest normal half: subnormal or zero
    if (abs < 0x33000000u) return sign;  // below half of the smallest subnormal
    const std::uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
    const int shift = 126 - static_cast<int>(abs >> 23);  // 14 .. 24
    const std::uint32_t rounded = mantissa >> shift;
    const std::uint32_t remainder = mantissa & ((1u << shift) - 1);
    const std::uint32_t halfway = 1u << (shift - 1);
    std::uint32_t result = rounded;
    if (remainder > halfway || (remainder == halfway && (rounded & 1u))) ++result;
    return static_cast<std::uint16_t>(sign | result);
  }
  std::uint32_t result = ((abs >> 23) - 112) << 10 | ((abs >> 13) & 0x3ffu);
  const std::uint32_t remainder = abs & 0x1fffu;
  if (remainder > 0x1000u || (remainder == 0x1000u && (result & 1u))) ++result;
  return static_cast<std::uint16_t>(sign | result);
}

float bf16_to_float(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

std::uint16_t float_to_bf16(float value) {
  std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return static_cast<std::uint16_t>((bits >> 16) | 0x40u);  // quiet nan
  bits += 0x7fffu + ((bits >> 16) & 1u);                      // round to nearest even
  return static_cast<std::uint16_t>(bits >> 16);
}

namespace {

// One fp8 format: decoding is arithmetic; encoding is a search in the sorted table of its
// non-negative finite values (codes 0 .. max_code increase with the value), which makes
// round-to-nearest-even exact without bit tricks.
struct Fp8Format {
  int mantissa_bits, bias;
  std::uint8_t max_code;  // the largest finite magnitude's code
  bool has_infinity;
  std::uint8_t nan_code;

  float decode(std::uint8_t bits) const {
    const bool negative = bits & 0x80u;
    const int exponent = (bits & 0x7fu) >> mantissa_bits;
    const int mantissa = bits & ((1 << mantissa_bits) - 1);
    const int max_exponent = (1 << (7 - mantissa_bits)) - 1;
    float magnitude;
    if (has_infinity && exponent == max_exponent)
      magnitude =
          mantissa == 0 ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
    else if (!has_infinity && (bits & 0x7fu) == 0x7fu)
      magnitude = std::numeric_limits<float>::quiet_NaN();
    else if (exponent == 0)
      magnitude = std::ldexp(static_cast<float>(mantissa), 1 - bias - mantissa_bits);
    else
      magnitude =
          std::ldexp(static_cast<float>((1 << mantissa_bits) + mantissa), exponent - bias - mantissa_bits);
    return negative ? -magnitude : magnitude;
  }
  std::uint8_t encode(float value) const {
    if (std::isnan(value)) return nan_code;
    const std::uint8_t sign = std::signbit(value) ? 0x80u : 0u;
    const float magnitude = std::fabs(value);
    std::uint8_t lo = 0, hi = max_code;  // decode(lo) <= magnitude < decode(hi), or saturate
    if (magnitude >= decode(max_code)) return static_cast<std::uint8_t>(sign | max_code);
    while (hi - lo > 1) {
      const auto mid = static_cast<std::uint8_t>((lo + hi) / 2);
      (decode(mid) <= magnitude ? lo : hi) = mid;
    }
    const float below = decode(lo), above = decode(hi);
    std::uint8_t code = magnitude - below < above - magnitude   ? lo
                        : magnitude - below > above - magnitude ? hi
                        : (lo & 1u) == 0                        ? lo
                                                                : hi;
    return static_cast<std::uint8_t>(sign | code);
  }
};
constexpr Fp8Format kE4m3{3, 7, 0x7e, false, 0x7f};
constexpr Fp8Format kE5m2{2, 15, 0x7b, true, 0x7e};

template <class T>
T saturate_round(double value) {
  if (std::isnan(value)) return 0;
  const double r = std::nearbyint(value);
  if (r <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
  if (r >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(r);
}

template <class T>
T load_as(const std::byte* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

template <class T>
void store_as(std::byte* p, T value) {
  std::memcpy(p, &value, sizeof(T));
}

}  // namespace

float fp8_e4m3_to_float(std::uint8_t bits) {
  return kE4m3.decode(bits);
}
std::uint8_t float_to_fp8_e4m3(float value) {
  return kE4m3.encode(value);
}
float fp8_e5m2_to_float(std::uint8_t bits) {
  return kE5m2.decode(bits);
}
std::uint8_t float_to_fp8_e5m2(float value) {
  return kE5m2.encode(value);
}

double load_element(DataType type, const std::byte* p) {
  switch (type) {
    case DataType::f32:
      return load_as<float>(p);
    case DataType::f64:
      return load_as<double>(p);
    case DataType::f16:
      return half_to_float(load_as<std::uint16_t>(p));
    case DataType::bf16:
      return bf16_to_float(load_as<std::uint16_t>(p));
    case DataType::i8:
      return load_as<std::int8_t>(p);
    case DataType::u8:
    case DataType::boolean:
      return load_as<std::uint8_t>(p);
    case DataType::i32:
      return load_as<std::int32_t>(p);
    case DataType::i64:
      return static_cast<double>(load_as<std::int64_t>(p));
    case DataType::fp8_e4m3:
      return fp8_e4m3_to_float(load_as<std::uint8_t>(p));
    case DataType::fp8_e5m2:
      return fp8_e5m2_to_float(load_as<std::uint8_t>(p));
    default:
      return std::numeric_limits<double>::quiet_NaN();
  }
}

void store_element(DataType type, std::byte* p, double value) {
  switch (type) {
    case DataType::f32:
      store_as(p, static_cast<float>(value));
      break;
    case DataType::f64:
      store_as(p, value);
      break;
    case DataType::f16:
      store_as(p, float_to_half(static_cast<float>(value)));
      break;
    case DataType::bf16:
      store_as(p, float_to_bf16(static_cast<float>(value)));
      break;
    case DataType::i8:
      store_as(p, saturate_round<std::int8_t>(value));
      break;
    case DataType::u8:
    case DataType::boolean:
      store_as(p, saturate_round<std::uint8_t>(value));
      break;
    case DataType::i32:
      store_as(p, saturate_round<std::int32_t>(value));
      break;
    case DataType::i64:
      store_as(p, saturate_round<std::int64_t>(value));
      break;
    case DataType::fp8_e4m3:
      store_as(p, float_to_fp8_e4m3(static_cast<float>(value)));
      break;
    case DataType::fp8_e5m2:
      store_as(p, float_to_fp8_e5m2(static_cast<float>(value)));
      break;
    default:
      break;
  }
}

double round_to(DataType type, double value) {
  std::byte buffer[8];
  store_element(type, buffer, value);
  return load_element(type, buffer);
}

}  // namespace dnnbench
