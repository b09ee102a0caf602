#pragma once
// A CPU allocator for LibTorch that counts live bytes and their peak, so a benchmark can
// report the peak tensor memory of one forward exactly (RSS high-water marks are blurred
// by malloc keeping freed pages).

#include <atomic>
#include <cstdint>

namespace tsserve::testing {

class CountingCpuAllocator {
 public:
  // Installs the allocator for every CPU tensor allocated afterwards (process-wide).
  static void install();
  // Makes the current live bytes the new peak (call before the measured region).
  static void reset_peak();
  static int64_t live_bytes();
  static int64_t peak_bytes();
};

}  // namespace tsserve::testing
