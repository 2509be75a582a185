#pragma once
// .npy output (NumPy format 1.0): logical shape, C order. bf16 and fp8 are written as fp32
// (NumPy has no such types); other types keep their own.
#include <filesystem>

#include "tensor/dense.hpp"
#include "tensor/dtype.hpp"

namespace dnnbench {

// Throws std::runtime_error naming the path when it cannot be written.
void write_npy(const std::filesystem::path& path, const Dense& values, DataType type);

}  // namespace dnnbench
