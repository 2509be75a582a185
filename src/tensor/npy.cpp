#include "tensor/npy.hpp"

#include <fmt/format.h>

#include <fstream>
#include <stdexcept>
#include <vector>

namespace dnnbench {
namespace {

struct NpyType {
  const char* descr;
  DataType stored;
};

NpyType npy_type(DataType type) {
  switch (type) {
    case DataType::f64:
      return {"<f8", DataType::f64};
    case DataType::f16:
      return {"<f2", DataType::f16};
    case DataType::i8:
      return {"|i1", DataType::i8};
    case DataType::u8:
      return {"|u1", DataType::u8};
    case DataType::i32:
      return {"<i4", DataType::i32};
    case DataType::i64:
      return {"<i8", DataType::i64};
    default:
      return {"<f4", DataType::f32};  // f32, bf16, fp8
  }
}

}  // namespace

void write_npy(const std::filesystem::path& path, const Dense& values, DataType type) {
  const auto npy = npy_type(type);
  std::string shape;
  for (auto d : values.dims) shape += fmt::format("{}, ", d);
  if (values.dims.size() > 1) shape.resize(shape.size() - 2);  // "(3,)" keeps its comma for 1-D
  std::string header =
      fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", npy.descr, shape);
  // Magic (6) + version (2) + header length (2) + header + '\n' must be a multiple of 64.
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';

  std::filesystem::create_directories(path.parent_path());
  std::ofstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot write " + path.string());
  file.write("\x93NUMPY\x01\x00", 8);
  const auto header_len = static_cast<std::uint16_t>(header.size());
  const char len_bytes[2] = {static_cast<char>(header_len & 0xff), static_cast<char>(header_len >> 8)};
  file.write(len_bytes, 2);
  file.write(header.data(), static_cast<std::streamsize>(header.size()));
  const std::size_t size = dtype_size(npy.stored);
  std::vector<std::byte> data(values.data.size() * size);
  for (std::size_t i = 0; i < values.data.size(); ++i)
    store_element(npy.stored, data.data() + i * size, values.data[i]);
  file.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  if (!file) throw std::runtime_error("error writing " + path.string());
}

}  // namespace dnnbench
