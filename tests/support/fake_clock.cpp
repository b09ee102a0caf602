#include "fake_clock.h"

#include <algorithm>
#include <vector>

// Why a wake-up cannot be lost: a waiter registers (deadline, its mutex, its condition
// variable) under the clock's mutex while it still owns its own mutex, and gives that up
// only inside condition_variable::wait. advance() takes the waiter's mutex before it
// notifies, so the notification comes after the waiter is inside wait(). A waiter that
// registers after advance() moved time sees the new time and does not block at all.

namespace tsserve::server {

FakeClock::FakeClock(time_point start) : now_(start) {}

Clock::time_point FakeClock::now() const {
  std::lock_guard<std::mutex> guard(mutex_);
  return now_;
}

void FakeClock::wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                           time_point deadline) {
  std::uint64_t id = 0;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    if (now_ >= deadline) {
      return;
    }
    id = blocked_waits_++;
    waiters_.emplace(id, Waiter{deadline, lock.mutex(), &cv});
  }
  waiters_changed_.notify_all();
  cv.wait(lock);
  {
    std::lock_guard<std::mutex> guard(mutex_);
    waiters_.erase(id);  // already gone when advance() woke us
  }
  waiters_changed_.notify_all();
}

void FakeClock::advance(duration step) {
  std::vector<Waiter> due;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    now_ += step;
    for (auto it = waiters_.begin(); it != waiters_.end();) {
      if (it->second.deadline <= now_) {
        due.push_back(it->second);
        it = waiters_.erase(it);
      } else {
        ++it;
      }
    }
  }
  waiters_changed_.notify_all();
  // Our mutex is released first: waiters take theirs before ours, so holding ours while
  // taking theirs could deadlock.
  for (const Waiter& waiter : due) {
    // Owning the waiter's mutex for a moment means the waiter is inside cv.wait() (or past
    // it), so the notification below cannot fall in the gap before it started waiting.
    { std::lock_guard<std::mutex> ordering(*waiter.mutex); }
    waiter.cv->notify_all();
  }
}

std::size_t FakeClock::waiters() const {
  std::lock_guard<std::mutex> guard(mutex_);
  return waiters_.size();
}

std::size_t FakeClock::waiters_until(time_point deadline) const {
  std::lock_guard<std::mutex> guard(mutex_);
  return waiters_until_locked(deadline);
}

std::size_t FakeClock::waiters_until_locked(time_point deadline) const {
  return static_cast<std::size_t>(
      std::count_if(waiters_.begin(), waiters_.end(),
                    [&](const auto& entry) { return entry.second.deadline == deadline; }));
}

bool FakeClock::await_waiters(std::size_t count, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mutex_);
  return waiters_changed_.wait_for(lock, timeout, [&] { return waiters_.size() >= count; });
}

std::uint64_t FakeClock::blocked_waits() const {
  std::lock_guard<std::mutex> guard(mutex_);
  return blocked_waits_;
}

bool FakeClock::await_blocked_waits(std::uint64_t count, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mutex_);
  return waiters_changed_.wait_for(lock, timeout, [&] { return blocked_waits_ >= count; });
}

bool FakeClock::await_waiter_until(time_point deadline, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mutex_);
  return waiters_changed_.wait_for(lock, timeout,
                                   [&] { return waiters_until_locked(deadline) >= 1; });
}

}  // namespace tsserve::server
