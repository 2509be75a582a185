#pragma once
// HostTensor: a tensor's storage in host memory, in its own data type and strides, exactly
// as a library reads or writes it.
#include <cstddef>
#include <vector>

#include "graph/graph.hpp"
#include "tensor/dense.hpp"
#include "tensor/page_aligned.hpp"

namespace dnnbench {

// Throws std::invalid_argument when dnnbench cannot store `desc`'s data type.
void require_storage(const TensorDesc& desc);

class HostTensor {
 public:
  explicit HostTensor(const TensorDesc& desc);

  const TensorDesc& desc() const { return desc_; }
  std::byte* data() { return bytes_.data(); }
  const std::byte* data() const { return bytes_.data(); }
  std::size_t size_bytes() const { return bytes_.size(); }

  // Logical values (C order) read from the strided storage.
  Dense to_dense() const;
  // Stores logical values (C order) into the strided storage, rounding to the data type.
  void from_dense(const Dense& values);
  // Fills every storage element with NaN (floats) or a sentinel (integers) so that elements a
  // library does not write are caught by the comparison.
  void poison();

 private:
  TensorDesc desc_;
  std::vector<std::byte, PageAligned<std::byte>> bytes_;  // page-aligned: see page_aligned.hpp
};

// Calls fn(logical_linear_index, storage_offset) for the elements whose logical (C-order) index
// is in [begin, end), in order.
template <class Fn>
void for_each_element_in(const std::vector<std::int64_t>& dims, const std::vector<std::int64_t>& strides,
                         std::int64_t begin, std::int64_t end, Fn&& fn) {
  const std::size_t rank = dims.size();
  if (begin >= end) return;
  std::vector<std::int64_t> index(rank, 0);
  std::int64_t offset = 0;
  for (std::size_t k = rank, rest = static_cast<std::size_t>(begin); k-- > 0;) {
    index[k] = static_cast<std::int64_t>(rest % static_cast<std::size_t>(dims[k]));
    rest /= static_cast<std::size_t>(dims[k]);
    offset += index[k] * strides[k];
  }
  for (std::int64_t linear = begin; linear < end; ++linear) {
    fn(linear, offset);
    for (std::size_t k = rank; k-- > 0;) {
      if (++index[k] < dims[k]) {
        offset += strides[k];
        break;
      }
      offset -= strides[k] * (dims[k] - 1);
      index[k] = 0;
    }
  }
}

// Calls fn(logical_linear_index, storage_offset) for every element of `desc` in C order.
template <class Fn>
void for_each_element(const std::vector<std::int64_t>& dims, const std::vector<std::int64_t>& strides,
                      Fn&& fn) {
  std::int64_t total = 1;
  for (auto d : dims) total *= d;
  for_each_element_in(dims, strides, 0, total, fn);
}

}  // namespace dnnbench
