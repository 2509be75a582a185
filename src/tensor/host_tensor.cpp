#include "tensor/host_tensor.hpp"

#include <limits>
#include <stdexcept>

namespace dnnbench {

HostTensor::HostTensor(const TensorDesc& desc)
    : desc_(desc), bytes_(static_cast<std::size_t>(desc.storage_bytes())) {
  if (!dtype_has_storage(desc.dtype))
    throw std::invalid_argument("tensor '" + desc.name + "': data type " +
                                std::string(dtype_name(desc.dtype)) + " has no storage in dnnbench");
}

Dense HostTensor::to_dense() const {
  Dense out(desc_.dims);
  const std::size_t size = dtype_size(desc_.dtype);
  for_each_element(desc_.dims, desc_.strides, [&](std::int64_t linear, std::int64_t offset) {
    out.data[static_cast<std::size_t>(linear)] =
        load_element(desc_.dtype, bytes_.data() + static_cast<std::size_t>(offset) * size);
  });
  return out;
}

void HostTensor::from_dense(const Dense& values) {
  if (values.dims != desc_.dims)
    throw std::invalid_argument("from_dense: dims differ for tensor '" + desc_.name + "'");
  const std::size_t size = dtype_size(desc_.dtype);
  for_each_element(desc_.dims, desc_.strides, [&](std::int64_t linear, std::int64_t offset) {
    store_element(desc_.dtype, bytes_.data() + static_cast<std::size_t>(offset) * size,
                  values.data[static_cast<std::size_t>(linear)]);
  });
}

void HostTensor::poison() {
  const std::size_t size = dtype_size(desc_.dtype);
  // Integers have no NaN: a large odd value no seeded fill or correct op produces by accident.
  const double sentinel = dtype_is_floating(desc_.dtype) ? std::numeric_limits<double>::quiet_NaN() : 1e9 + 7;
  for (std::size_t off = 0; off + size <= bytes_.size(); off += size)
    store_element(desc_.dtype, bytes_.data() + off, sentinel);
}

}  // namespace dnnbench
