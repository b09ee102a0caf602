#pragma once
// Time for the batcher, injected so tests move time instead of sleeping.
//
// The batcher needs two things from time: the current steady time, and a way to block on
// its condition variable until a deadline passes or someone notifies it. Both go through
// Clock, so a test clock (fake_clock.h) decides when a deadline "passes" and the batcher
// code is the same in tests and in production.
//
// Thread safety: implementations are thread-safe.

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace tsserve::server {

class Clock {
 public:
  using time_point = std::chrono::steady_clock::time_point;
  using duration = std::chrono::steady_clock::duration;

  Clock() = default;
  Clock(const Clock&) = delete;
  Clock& operator=(const Clock&) = delete;
  virtual ~Clock() = default;

  // Never goes backwards.
  virtual time_point now() const = 0;

  // Blocks until `deadline` has passed by this clock or `cv` is notified, and may also
  // return spuriously: callers re-check their condition in a loop, as with
  // std::condition_variable. Returns at once when `deadline` has already passed.
  // time_point::max() means "until notified".
  // REQUIRES: `lock` owns the mutex under which notifiers of `cv` change the state the
  // caller waits on. It is released while blocked and owned again on return.
  virtual void wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                          time_point deadline) = 0;
};

// std::chrono::steady_clock, and std::condition_variable::wait_until for the waits.
class SystemClock final : public Clock {
 public:
  time_point now() const override;
  void wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                  time_point deadline) override;

  // One process-wide instance (the class is stateless), the default of every batcher.
  static SystemClock& instance();
};

}  // namespace tsserve::server
