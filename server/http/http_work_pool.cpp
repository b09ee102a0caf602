#include "server/http/http_work_pool.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <utility>

namespace tsserve::server {
namespace {

// Linux's nice is per thread: PRIO_PROCESS with a thread id sets that thread's alone.
void lower_this_threads_priority() {
  const auto thread_id = static_cast<id_t>(::syscall(SYS_gettid));
  if (::setpriority(PRIO_PROCESS, thread_id, 10) != 0) {
    std::perror("tsserve: the HTTP work pool keeps normal priority: setpriority");
  }
}

}  // namespace

HttpWorkPool::HttpWorkPool(int threads) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { run(); });
}

HttpWorkPool::~HttpWorkPool() {
  std::deque<std::function<void()>> dropped;
  {
    MutexLock lock(mutex_);
    stopping_ = true;
    dropped.swap(queue_);
  }
  wake_.notify_all();
  for (auto& thread : threads_) thread.join();
  // `dropped` goes here, outside the lock: its responders close their connections.
}

void HttpWorkPool::post(std::function<void()> work) {
  {
    MutexLock lock(mutex_);
    if (stopping_) return;
    queue_.push_back(std::move(work));
  }
  wake_.notify_one();
}

void HttpWorkPool::run() {
  lower_this_threads_priority();
  for (;;) {
    std::function<void()> work;
    {
      MutexLock lock(mutex_);
      while (!stopping_ && queue_.empty()) wake_.wait(lock.native());
      if (stopping_) return;
      work = std::move(queue_.front());
      queue_.pop_front();
    }
    // The door catches its own failures (http_door.cpp); this is the last line.
    try {
      work();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tsserve: HTTP work failed: %s\n", e.what());
    } catch (...) {
      std::fprintf(stderr, "tsserve: HTTP work failed\n");
    }
  }
}

}  // namespace tsserve::server
