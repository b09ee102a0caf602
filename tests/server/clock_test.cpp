#include "server/batching/clock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "fake_clock.h"

namespace tsserve::server {
namespace {

using namespace std::chrono_literals;

// Real-time bound on every cross-thread wait: a broken clock fails, it does not hang.
constexpr std::chrono::milliseconds kBound = 10s;

// Waits on a Clock the way the batcher does, on a thread of its own: until `deadline`
// passes by the clock or release() is called. The destructor releases and joins, so a
// failing test still ends.
class Sleeper {
 public:
  Sleeper(Clock& clock, Clock::time_point deadline)
      : thread_([this, &clock, deadline] {
          std::unique_lock<std::mutex> lock(mutex_);
          while (!released_ && clock.now() < deadline) {
            clock.wait_until(lock, cv_, deadline);
          }
          done_ = true;
          done_cv_.notify_all();
        }) {}
  ~Sleeper() {
    release();
    thread_.join();
  }

  void release() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      released_ = true;
    }
    cv_.notify_all();
  }
  bool await_done(std::chrono::milliseconds timeout = kBound) {
    std::unique_lock<std::mutex> lock(mutex_);
    return done_cv_.wait_for(lock, timeout, [this] { return done_; });
  }
  bool done() {
    std::lock_guard<std::mutex> lock(mutex_);
    return done_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::condition_variable done_cv_;
  bool released_ = false;  // guarded by mutex_
  bool done_ = false;      // guarded by mutex_
  std::thread thread_;     // last: starts after the members it uses
};

TEST(FakeClockTest, MovesOnlyWhenAdvanced) {
  FakeClock clock;
  const Clock::time_point t0 = clock.now();
  EXPECT_EQ(clock.now(), t0);
  clock.advance(3ms);
  EXPECT_EQ(clock.now(), t0 + 3ms);
  clock.advance(0ms);
  EXPECT_EQ(clock.now(), t0 + 3ms);
}

TEST(FakeClockTest, WaitForAReachedDeadlineReturnsWithoutBlocking) {
  FakeClock clock;
  Sleeper sleeper(clock, clock.now());
  ASSERT_TRUE(sleeper.await_done());
  EXPECT_EQ(clock.waiters(), 0u);
}

TEST(FakeClockTest, AdvanceWakesExactlyTheWaitersWhoseDeadlineItReaches) {
  FakeClock clock;
  const Clock::time_point t0 = clock.now();
  Sleeper early(clock, t0 + 1ms);
  Sleeper late(clock, t0 + 5ms);
  ASSERT_TRUE(clock.await_waiter_until(t0 + 1ms, kBound));
  ASSERT_TRUE(clock.await_waiter_until(t0 + 5ms, kBound));
  EXPECT_EQ(clock.waiters(), 2u);

  clock.advance(999us);
  EXPECT_EQ(clock.waiters_until(t0 + 1ms), 1u) << "woken before its deadline";
  EXPECT_FALSE(early.done());

  clock.advance(1us);
  ASSERT_TRUE(early.await_done());
  EXPECT_EQ(clock.waiters_until(t0 + 5ms), 1u);
  EXPECT_FALSE(late.done());

  clock.advance(4ms);
  ASSERT_TRUE(late.await_done());
  EXPECT_TRUE(clock.await_waiters(0, kBound));
}

TEST(FakeClockTest, NotificationWakesAWaiterWithoutTimeMoving) {
  FakeClock clock;
  const Clock::time_point t0 = clock.now();
  Sleeper sleeper(clock, Clock::time_point::max());
  ASSERT_TRUE(clock.await_waiter_until(Clock::time_point::max(), kBound));
  sleeper.release();
  ASSERT_TRUE(sleeper.await_done());
  EXPECT_EQ(clock.now(), t0);
}

// advance() racing with a thread that keeps starting new waits: a lost wake-up leaves the
// waiter blocked on a deadline the clock has already reached, and the test times out.
TEST(FakeClockTest, NoWakeUpIsLostWhenAdvanceRacesWithWaits) {
  FakeClock clock;
  const Clock::time_point t0 = clock.now();
  constexpr int kSteps = 2000;
  std::mutex mutex;
  std::condition_variable cv;
  std::mutex done_mutex;
  std::condition_variable done_cv;
  bool done = false;
  std::thread waiter([&] {
    std::unique_lock<std::mutex> lock(mutex);
    for (int step = 1; step <= kSteps; ++step) {
      const Clock::time_point deadline = t0 + step * 1us;
      while (clock.now() < deadline) {
        clock.wait_until(lock, cv, deadline);
      }
    }
    std::lock_guard<std::mutex> done_lock(done_mutex);
    done = true;
    done_cv.notify_all();
  });
  // Each advance() follows the waiter's registration as closely as possible, when the
  // waiter may not yet be inside cv.wait().
  bool finished = true;
  for (int step = 1; step <= kSteps && finished; ++step) {
    finished = clock.await_waiter_until(t0 + step * 1us, kBound);
    clock.advance(1us);
  }
  if (finished) {
    std::unique_lock<std::mutex> done_lock(done_mutex);
    finished = done_cv.wait_for(done_lock, kBound, [&] { return done; });
  }
  if (!finished) {
    // Unblock the waiter so the test can end: every deadline is reached, and a notify
    // makes it re-check.
    clock.advance(1h);
    { std::lock_guard<std::mutex> lock(mutex); }
    cv.notify_all();
  }
  waiter.join();
  EXPECT_TRUE(finished) << "a waiter missed the advance() that reached its deadline";
}

TEST(SystemClockTest, NowNeverGoesBackwards) {
  Clock& clock = SystemClock::instance();
  Clock::time_point previous = clock.now();
  for (int i = 0; i < 1000; ++i) {
    const Clock::time_point now = clock.now();
    ASSERT_GE(now, previous);
    previous = now;
  }
}

TEST(SystemClockTest, WaitReturnsOnceTheDeadlinePasses) {
  Clock& clock = SystemClock::instance();
  const Clock::time_point deadline = clock.now() + 1ms;
  Sleeper sleeper(clock, deadline);
  ASSERT_TRUE(sleeper.await_done());
  EXPECT_GE(clock.now(), deadline);
}

TEST(SystemClockTest, WaitWithoutDeadlineReturnsWhenNotified) {
  Sleeper sleeper(SystemClock::instance(), Clock::time_point::max());
  sleeper.release();
  ASSERT_TRUE(sleeper.await_done());
}

}  // namespace
}  // namespace tsserve::server
