#pragma once
// Float storage aligned to a cache line, for the operands the fused kernels stream: a
// 16-float row of a packed weight panel (fused_packed_linear.h) is then exactly one 64-byte
// line, so each vector load touches one line instead of straddling two.

#include <cstddef>
#include <new>
#include <vector>

namespace tsserve::model {

constexpr std::size_t kFusedAlignment = 64;

template <typename T>
struct FusedAlignedAllocator {
  using value_type = T;

  FusedAlignedAllocator() = default;
  template <typename U>
  FusedAlignedAllocator(const FusedAlignedAllocator<U>&) {}  // NOLINT: rebinding is implicit

  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{kFusedAlignment}));
  }
  void deallocate(T* p, std::size_t) { ::operator delete (p, std::align_val_t{kFusedAlignment}); }

  template <typename U>
  bool operator==(const FusedAlignedAllocator<U>&) const {
    return true;
  }
  template <typename U>
  bool operator!=(const FusedAlignedAllocator<U>&) const {
    return false;
  }
};

using FusedFloats = std::vector<float, FusedAlignedAllocator<float>>;

}  // namespace tsserve::model
