#pragma once
// An allocator that starts every buffer on a page boundary. Tensors a plan binds are allocated
// with it so that two instances of the same plan see their buffers at the same offsets modulo
// the page size: the same cache-line splits and the same 4 KiB aliasing between inputs and
// outputs. With malloc's 16-byte alignment, two instances of one oneDNN plan on a few-KiB
// tensor timed 4-10% apart, steadily (A/A over graphs/samples, see docs/oracle.md).
#include <cstddef>
#include <new>

namespace dnnbench {

inline constexpr std::size_t kPageSize = 4096;

template <class T>
struct PageAligned {
  using value_type = T;
  PageAligned() = default;
  template <class U>
  PageAligned(const PageAligned<U>&) noexcept {}
  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{kPageSize}));
  }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete (p, std::align_val_t{kPageSize}); }
  template <class U>
  bool operator==(const PageAligned<U>&) const noexcept {
    return true;
  }
};

}  // namespace dnnbench
