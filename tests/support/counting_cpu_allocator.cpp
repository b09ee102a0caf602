#include "counting_cpu_allocator.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/impl/alloc_cpu.h>

#include <cstring>

namespace tsserve::testing {
namespace {

std::atomic<int64_t> live{0};
std::atomic<int64_t> peak{0};

// The size lives in a header in front of the data, so the data pointer can be its own
// context (LibTorch's raw_allocate requires that). 64 bytes keep alloc_cpu's alignment.
constexpr size_t kHeader = 64;

void release(void* data) {
  void* base = static_cast<char*>(data) - kHeader;
  live.fetch_sub(*static_cast<int64_t*>(base));
  c10::free_cpu(base);
}

c10::DataPtr allocate_counted(size_t bytes) {
  void* base = c10::alloc_cpu(bytes + kHeader);
  *static_cast<int64_t*>(base) = static_cast<int64_t>(bytes);
  void* data = static_cast<char*>(base) + kHeader;
  const int64_t now = live.fetch_add(static_cast<int64_t>(bytes)) + static_cast<int64_t>(bytes);
  int64_t seen = peak.load();
  while (now > seen && !peak.compare_exchange_weak(seen, now)) {
  }
  return {data, data, &release, c10::Device(c10::DeviceType::CPU)};
}

// Written to build on LibTorch 1.x and 2.x without version checks: 1.x declares
// allocate() const and has no copy_data; 2.x declares allocate() non-const and makes
// copy_data pure. Of each allocate pair one overrides, the other is never called.
class Counting final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t bytes) const { return allocate_counted(bytes); }
  c10::DataPtr allocate(size_t bytes) { return allocate_counted(bytes); }
  void copy_data(void* dest, const void* src, std::size_t count) const {
    std::memcpy(dest, src, count);
  }
  c10::DeleterFnPtr raw_deleter() const override { return &release; }
};

}  // namespace

void CountingCpuAllocator::install() {
  static Counting allocator;
  c10::SetCPUAllocator(&allocator, /*priority=*/100);
}

void CountingCpuAllocator::reset_peak() { peak.store(live.load()); }
int64_t CountingCpuAllocator::live_bytes() { return live.load(); }
int64_t CountingCpuAllocator::peak_bytes() { return peak.load(); }

}  // namespace tsserve::testing
