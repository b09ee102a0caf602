#include "server/batching/clock.h"

namespace tsserve::server {

Clock::time_point SystemClock::now() const { return std::chrono::steady_clock::now(); }

void SystemClock::wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                             time_point deadline) {
  if (deadline == time_point::max()) {
    // Converting max() to the native timeout overflows on some standard libraries.
    cv.wait(lock);
    return;
  }
  cv.wait_until(lock, deadline);
}

SystemClock& SystemClock::instance() {
  static SystemClock clock;
  return clock;
}

}  // namespace tsserve::server
