#pragma once
// Threads for the HTTP requests that would hold an I/O thread too long: model loads and
// unloads, Observe, and any body over kLargeHttpBody to parse. On the I/O threads (two by
// default) one such request would stall every other connection's reads and small calls;
// here they wait their turn instead.
//
// Its threads run at a lower CPU priority (nice +10, Linux's per-thread nice): when the
// cores are busy, the I/O threads and the batchers' forwards go first, so a stream of
// maximum-size bodies slows itself, not the legitimate calls (BENCHMARKS.md, "Under
// attack"). Idle cores still run this work at full speed.
//
// Lifetime: the destructor drops the work not yet started (its responders, and so its
// connections, with it) and joins the threads after the running work ends.

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "server/sync/mutex.h"

namespace tsserve::server {

// Bodies over this many bytes are parsed on the pool (a parse runs ~ 0.1 - 1 GB/s: up to
// a few hundred microseconds on an I/O thread below it).
inline constexpr std::size_t kLargeHttpBody = std::size_t{64} * 1024;

class HttpWorkPool {
 public:
  // REQUIRES: threads >= 1.
  explicit HttpWorkPool(int threads);
  HttpWorkPool(const HttpWorkPool&) = delete;
  HttpWorkPool& operator=(const HttpWorkPool&) = delete;
  ~HttpWorkPool();

  // Runs `work` on one of the threads, in the order posted. Thread-safe.
  void post(std::function<void()> work);

 private:
  void run();

  Mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ TSSERVE_GUARDED_BY(mutex_) = false;
  std::deque<std::function<void()>> queue_ TSSERVE_GUARDED_BY(mutex_);
  std::vector<std::thread> threads_;
};

}  // namespace tsserve::server
