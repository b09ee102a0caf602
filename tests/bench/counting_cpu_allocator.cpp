#include "counting_cpu_allocator.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/impl/alloc_cpu.h>

namespace tsserve::bench {
namespace {

std::atomic<int64_t> live{0};
std::atomic<int64_t> peak{0};

struct Allocation {
  void* data;
  int64_t bytes;
};

void release(void* context) {
  auto* allocation = static_cast<Allocation*>(context);
  live.fetch_sub(allocation->bytes);
  c10::free_cpu(allocation->data);
  delete allocation;
}

class Counting final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t bytes) const override {
    void* data = c10::alloc_cpu(bytes);
    const int64_t now = live.fetch_add(static_cast<int64_t>(bytes)) + static_cast<int64_t>(bytes);
    int64_t seen = peak.load();
    while (now > seen && !peak.compare_exchange_weak(seen, now)) {
    }
    return {data, new Allocation{data, static_cast<int64_t>(bytes)}, &release,
            c10::Device(c10::DeviceType::CPU)};
  }
};

}  // namespace

void CountingCpuAllocator::install() {
  static Counting allocator;
  c10::SetCPUAllocator(&allocator, /*priority=*/100);
}

void CountingCpuAllocator::reset_peak() { peak.store(live.load()); }
int64_t CountingCpuAllocator::live_bytes() { return live.load(); }
int64_t CountingCpuAllocator::peak_bytes() { return peak.load(); }

}  // namespace tsserve::bench
