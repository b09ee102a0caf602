#pragma once
// Polling instead of sleeping, for a thread that expects work within microseconds.
//
// A thread that blocks on a condition variable lets its core idle; a forward that then
// starts on it runs slower for a while (caches and frequency; model_bench
// BM_FusedForwardAfterIdle, figures in BENCHMARKS.md), and waking a halted core costs
// more than a futex. Polling a counter for a bounded time keeps the core
// busy between calls that come back to back (a client's next call after its answer) and
// costs nothing to the submitter. Each poll yields, so other runnable threads on this core
// (gRPC's) are not delayed by it.
//
// Used by the batcher's workers (dynamic_batcher.h) and by the benchmark's gRPC floor
// server, so the two hand off work alike.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

namespace tsserve::server {

// Polls `signal` until it is no longer `seen` or `budget` has passed; callers re-check
// their state under their lock afterwards. A zero or negative budget returns at once.
inline void spin_until_changed(const std::atomic<std::uint64_t>& signal, std::uint64_t seen,
                               std::chrono::nanoseconds budget) {
  const auto until = std::chrono::steady_clock::now() + budget;
  while (signal.load(std::memory_order_acquire) == seen &&
         std::chrono::steady_clock::now() < until) {
    std::this_thread::yield();
  }
}

}  // namespace tsserve::server
