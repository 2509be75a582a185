#include "tensor/host_tensor.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "tensor/parallel.hpp"

namespace dnnbench {
namespace {

// fn(linear, offset) over every element, in chunks of the logical index over the cores: a
// perf-sized output (25 M elements) converts in tens of ms instead of a quarter second. A
// broadcast layout (a stride of 0) stores several logical elements in one place: in order, on
// one thread, so the last one written wins as it always has.
template <class Fn>
void for_each_element_parallel(const TensorDesc& desc, Fn&& fn) {
  const std::int64_t total = product(desc.dims);
  const bool aliased = std::find(desc.strides.begin(), desc.strides.end(), 0) != desc.strides.end();
  if (total < kParallelElements || aliased) return for_each_element_in(desc.dims, desc.strides, 0, total, fn);
  parallel_for(total, [&](std::int64_t begin, std::int64_t end) {
    for_each_element_in(desc.dims, desc.strides, begin, end, fn);
  });
}

}  // namespace

void require_storage(const TensorDesc& desc) {
  if (!dtype_has_storage(desc.dtype))
    throw std::invalid_argument("tensor '" + desc.name + "': data type " +
                                std::string(dtype_name(desc.dtype)) + " has no storage in dnnbench");
}

HostTensor::HostTensor(const TensorDesc& desc)
    : desc_(desc), bytes_(static_cast<std::size_t>(desc.storage_bytes())) {
  require_storage(desc);
}

Dense HostTensor::to_dense() const {
  Dense out(desc_.dims);
  const std::size_t size = dtype_size(desc_.dtype);
  for_each_element_parallel(desc_, [&](std::int64_t linear, std::int64_t offset) {
    out.data[static_cast<std::size_t>(linear)] =
        load_element(desc_.dtype, bytes_.data() + static_cast<std::size_t>(offset) * size);
  });
  return out;
}

void HostTensor::from_dense(const Dense& values) {
  if (values.dims != desc_.dims)
    throw std::invalid_argument("from_dense: dims differ for tensor '" + desc_.name + "'");
  const std::size_t size = dtype_size(desc_.dtype);
  for_each_element_parallel(desc_, [&](std::int64_t linear, std::int64_t offset) {
    store_element(desc_.dtype, bytes_.data() + static_cast<std::size_t>(offset) * size,
                  values.data[static_cast<std::size_t>(linear)]);
  });
}

void HostTensor::poison() {
  const std::size_t size = dtype_size(desc_.dtype);
  // Integers have no NaN: a large odd value no seeded fill or correct op produces by accident.
  const double sentinel = dtype_is_floating(desc_.dtype) ? std::numeric_limits<double>::quiet_NaN() : 1e9 + 7;
  if (bytes_.size() < size) return;
  store_element(desc_.dtype, bytes_.data(), sentinel);
  // Every element holds the same bytes: copied from the first in doubling spans (a perf-sized
  // output is poisoned before every checked run; element by element took ~0.1 s at 25 M).
  for (std::size_t filled = size; filled < bytes_.size();) {
    const std::size_t n = std::min(filled, bytes_.size() - filled);
    std::memcpy(bytes_.data() + filled, bytes_.data(), n);
    filled += n;
  }
}

}  // namespace dnnbench
