// A planted locking bug, never built into any target: CTest static_thread_safety_canary
// (thread_safety_canary.sh) compiles it with clang++ -Wthread-safety -Werror and passes
// only if clang refuses it for reading a guarded member without its mutex, and accepts it
// with TSSERVE_CANARY_HOLDS_LOCK defined (the lock held). So a break in the annotations
// (server/sync/, e.g. macros that expand to nothing under clang) fails a test instead of
// silently turning static_clang_tidy into a check of nothing. static_clang_tidy also runs
// this file through its own clang-tidy invocation first and fails unless that run reports
// the read below (clang_tidy_check.sh), so the run's flags are proved, not only the macros.
#include "server/sync/mutex.h"

namespace {

class Counter {
 public:
  int read() {
#ifdef TSSERVE_CANARY_HOLDS_LOCK
    const tsserve::MutexLock lock(mutex_);
#endif
    return value_;  // the planted bug unless the lock above is held
  }

 private:
  tsserve::Mutex mutex_;
  int value_ TSSERVE_GUARDED_BY(mutex_) = 0;
};

}  // namespace

int main() {
  Counter counter;
  return counter.read();
}
