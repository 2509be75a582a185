#pragma once
// Dense: a tensor's logical values as fp64 in C order (last dim fastest). The reference
// computes on these; comparison and .npy output read them.
#include <cstdint>
#include <vector>

namespace dnnbench {

struct Dense {
  std::vector<std::int64_t> dims;
  std::vector<double> data;  // size() == product of dims

  Dense() = default;
  explicit Dense(std::vector<std::int64_t> d, double value = 0.0);
  std::int64_t size() const { return static_cast<std::int64_t>(data.size()); }
  int rank() const { return static_cast<int>(dims.size()); }
  // C-order strides of `dims`.
  std::vector<std::int64_t> strides() const;
};

std::int64_t product(const std::vector<std::int64_t>& dims);
std::vector<std::int64_t> c_order_strides(const std::vector<std::int64_t>& dims);

}  // namespace dnnbench
