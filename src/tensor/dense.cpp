#include "tensor/dense.hpp"

namespace dnnbench {

std::int64_t product(const std::vector<std::int64_t>& dims) {
  std::int64_t n = 1;
  for (auto d : dims) n *= d;
  return n;
}

std::vector<std::int64_t> c_order_strides(const std::vector<std::int64_t>& dims) {
  std::vector<std::int64_t> strides(dims.size(), 1);
  for (std::size_t k = dims.size(); k-- > 1;) strides[k - 1] = strides[k] * dims[k];
  return strides;
}

Dense::Dense(std::vector<std::int64_t> d, double value)
    : dims(std::move(d)), data(static_cast<std::size_t>(product(dims)), value) {}

std::vector<std::int64_t> Dense::strides() const {
  return c_order_strides(dims);
}

}  // namespace dnnbench
