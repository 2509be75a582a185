#include "tensor/host_tensor.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace dnnbench {
namespace {

TensorDesc small_desc(std::int64_t elements) {
  TensorDesc d;
  d.uid = 1;
  d.name = "t";
  d.dims = {elements};
  d.strides = {1};
  d.dtype = DataType::f32;
  return d;
}

// Two instances of a plan must see their buffers at the same offsets modulo the page size
// (page_aligned.hpp says why); tensors of odd sizes allocated in a row must not drift.
TEST(HostTensor, StorageStartsOnAPageBoundary) {
  std::vector<HostTensor> tensors;
  for (std::int64_t n : {1, 3, 17, 1000, 4097, 1 << 20}) tensors.emplace_back(small_desc(n));
  for (const auto& t : tensors)
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.data()) % kPageSize, 0u) << t.size_bytes() << " bytes";
}

TEST(HostTensor, CopiesKeepValuesAndAlignment) {
  HostTensor a(small_desc(5));
  Dense values(std::vector<std::int64_t>{5});
  values.data = {1, 2, 3, 4, 5};
  a.from_dense(values);
  const HostTensor b = a;
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b.data()) % kPageSize, 0u);
  EXPECT_EQ(b.to_dense().data, a.to_dense().data);
}

}  // namespace
}  // namespace dnnbench
