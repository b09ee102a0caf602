#pragma once
// A Clock that moves only when told to, for tests of anything that waits on a Clock.
//
// advance() moves time forward and wakes every thread blocked in wait_until() whose
// deadline it reached; a notification of the waiter's condition variable wakes it as
// usual. Nothing ever waits in real time, so tests need no sleeps. await_waiter_until()
// and await_waiters() let a test block (in real time, bounded) until another thread is
// parked on the clock, e.g. "the batcher's worker now waits for oldest + delay", which
// turns "nothing happened yet" into something a test can know rather than guess. No
// wake-up is lost (fake_clock.cpp says why).
//
// Thread safety: every member is thread-safe.
// REQUIRES: the mutex and condition variable of a thread waiting on this clock outlive
// any advance() running concurrently. (advance() locks the waiter's mutex, so it must
// not be called with that mutex held either.) A test that advances and destroys on its
// own thread meets both.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

#include "server/batching/clock.h"

namespace tsserve::server {

class FakeClock final : public Clock {
 public:
  // Starts far from the steady clock's epoch, so tests can form earlier time points.
  explicit FakeClock(time_point start = time_point{} + std::chrono::hours(24));

  time_point now() const override;
  void wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                  time_point deadline) override;

  // Moves time forward by `step` and wakes the waiters whose deadline is now reached.
  // REQUIRES: step >= 0.
  void advance(duration step);

  // Threads now blocked in wait_until(): all of them, or those whose deadline is exactly
  // `deadline` (time_point::max() counts the ones waiting for a notification only).
  std::size_t waiters() const;
  std::size_t waiters_until(time_point deadline) const;

  // Block for at most `timeout` of real time until waiters() >= count, or until
  // waiters_until(deadline) >= 1. Return whether that happened.
  bool await_waiters(std::size_t count, std::chrono::milliseconds timeout) const;
  bool await_waiter_until(time_point deadline, std::chrono::milliseconds timeout) const;

  // How many wait_until() calls have blocked so far, and a bounded wait for that number
  // to reach `count`. Tells a new wait from one that was already there, e.g. that a
  // worker has looked at the queue again since a submit.
  std::uint64_t blocked_waits() const;
  bool await_blocked_waits(std::uint64_t count, std::chrono::milliseconds timeout) const;

 private:
  struct Waiter {
    time_point deadline;
    std::mutex* mutex;
    std::condition_variable* cv;
  };

  std::size_t waiters_until_locked(time_point deadline) const;  // REQUIRES: mutex_ held

  mutable std::mutex mutex_;
  // Notified whenever waiters_ changes (for the await_* calls).
  mutable std::condition_variable waiters_changed_;
  time_point now_;                           // guarded by mutex_
  std::map<std::uint64_t, Waiter> waiters_;  // guarded by mutex_; by registration id
  std::uint64_t blocked_waits_ = 0;          // guarded by mutex_; also the next waiter id
};

}  // namespace tsserve::server
