#include "counting_cpu_allocator.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/impl/alloc_cpu.h>

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

class Counting final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t bytes) const override {
    void* base = c10::alloc_cpu(bytes + kHeader);
    *static_cast<int64_t*>(base) = static_cast<int64_t>(bytes);
    void* data = static_cast<char*>(base) + kHeader;
    const int64_t now = live.fetch_add(static_cast<int64_t>(bytes)) + static_cast<int64_t>(bytes);
    int64_t seen = peak.load();
    while (now > seen && !peak.compare_exchange_weak(seen, now)) {
    }
    return {data, data, &release, c10::Device(c10::DeviceType::CPU)};
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
