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

TEST(ForEachElement, ARangeStartsAtTheRightStorageOffset) {
  // A permuted (NHWC-like) layout: every sub-range visits the same (linear, offset) pairs as the
  // whole walk, which is what the threaded conversion relies on.
  const std::vector<std::int64_t> dims{2, 3, 4, 5}, strides{60, 1, 15, 3};
  std::vector<std::pair<std::int64_t, std::int64_t>> whole, pieces;
  for_each_element(dims, strides, [&](std::int64_t l, std::int64_t o) { whole.emplace_back(l, o); });
  for (std::int64_t begin = 0; begin < 120; begin += 37)
    for_each_element_in(dims, strides, begin, std::min<std::int64_t>(begin + 37, 120),
                        [&](std::int64_t l, std::int64_t o) { pieces.emplace_back(l, o); });
  EXPECT_EQ(pieces, whole);
}

TEST(HostTensor, LargeStridedTensorsRoundTripThroughDense) {
  // Above the threading threshold, in a permuted layout and half precision.
  TensorDesc d;
  d.uid = 1;
  d.name = "big";
  d.dims = {8, 64, 32, 32};
  d.strides = {64 * 32 * 32, 1, 32 * 64, 64};  // NHWC
  d.dtype = DataType::f16;
  HostTensor t(d);
  Dense values(d.dims);
  for (std::size_t i = 0; i < values.data.size(); ++i) values.data[i] = static_cast<double>(i % 1024) / 8.0;
  t.from_dense(values);
  EXPECT_EQ(t.to_dense().data, values.data);  // multiples of 1/8 below 128 are exact in fp16
}

}  // namespace
}  // namespace dnnbench
