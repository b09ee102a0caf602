#pragma once
// tsserve::Mutex and tsserve::MutexLock: std::mutex and its scoped lock, annotated so that
// Clang's -Wthread-safety checks the members declared TSSERVE_GUARDED_BY a Mutex
// (thread_annotations.h). libstdc++'s std::mutex and std::lock_guard carry no capability
// attributes, so the analysis sees nothing locked through them. Both classes only forward
// to the standard ones: the same code runs, under GCC and Clang alike.
//
// Condition variables: MutexLock::native() is the std::unique_lock<std::mutex> that
// std::condition_variable (and Clock::wait_until) take. A wait releases the mutex while it
// blocks and holds it again before it returns, so to the analysis the mutex stays held
// across the call, as the code after the wait may assume. A predicate lambda passed to
// wait() is analysed as a function of its own: annotate it TSSERVE_REQUIRES(the mutex).
//
// Thread safety: as std::mutex. A MutexLock belongs to the thread that made it.

#include <mutex>
#include <utility>

#include "server/sync/thread_annotations.h"

namespace tsserve {

class TSSERVE_CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  // Prefer MutexLock; these are for the rare lock held across scopes.
  void lock() TSSERVE_ACQUIRE() { mutex_.lock(); }
  void unlock() TSSERVE_RELEASE() { mutex_.unlock(); }
  bool try_lock() TSSERVE_TRY_ACQUIRE(true) { return mutex_.try_lock(); }

 private:
  friend class MutexLock;
  std::mutex mutex_;
};

// Holds `mutex` from construction to destruction, like std::unique_lock: unlock() and
// lock() release and take it again in between (work done outside the lock), and the
// destructor releases it only if held.
class TSSERVE_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mutex) TSSERVE_ACQUIRE(mutex) : lock_(mutex.mutex_) {}
  ~MutexLock() TSSERVE_RELEASE() {}
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  void unlock() TSSERVE_RELEASE() { lock_.unlock(); }
  void lock() TSSERVE_ACQUIRE() { lock_.lock(); }

  // Runs `work` with the mutex released and holds it again before returning, also when
  // `work` throws. For a helper that was handed the lock: the analysis cannot tell which
  // mutex a MutexLock& holds, so unlock() through a reference is refused, while `work`
  // (a lambda) is checked as a function of its own, holding nothing, as it runs.
  template <typename Work>
  void run_unlocked(Work&& work) {
    lock_.unlock();
    const Relock relock{lock_};
    std::forward<Work>(work)();
  }

  // For std::condition_variable's waits only (see the header comment); unlocking through
  // it would hide the release from the analysis.
  std::unique_lock<std::mutex>& native() { return lock_; }

 private:
  struct Relock {
    std::unique_lock<std::mutex>& lock;
    ~Relock() { lock.lock(); }
  };

  std::unique_lock<std::mutex> lock_;
};

}  // namespace tsserve
