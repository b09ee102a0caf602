#pragma once
// Happens-before edges that ThreadSanitizer cannot see for itself.
//
// gRPC runs a reactor's reactions (OnCancel, OnDone) after the handler that returned it,
// and OnDone after Finish, often on other threads; it orders them with absl::Mutex and
// atomics inside libgrpc. Debian's libgrpc is not built with -fsanitize=thread, so TSan
// never sees that ordering and reports every call object handed between gRPC's threads
// as a race. happens_before/happens_after state gRPC's documented ordering at those
// hand-offs, so TSan checks the rest of our code instead of drowning in false reports.
// They compile to nothing outside ThreadSanitizer builds (TSSERVE_SANITIZE=thread).

#if defined(__SANITIZE_THREAD__)  // GCC; Clang's spelling is __has_feature below
#define TSSERVE_THREAD_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TSSERVE_THREAD_SANITIZER 1
#endif
#endif

#if defined(TSSERVE_THREAD_SANITIZER)
#include <sanitizer/tsan_interface.h>
#endif

namespace tsserve::server {

// What this thread did so far happens before what another thread does after a later
// happens_after(sync) with the same `sync`.
inline void happens_before([[maybe_unused]] const void* sync) {
#if defined(TSSERVE_THREAD_SANITIZER)
  __tsan_release(const_cast<void*>(sync));
#endif
}

inline void happens_after([[maybe_unused]] const void* sync) {
#if defined(TSSERVE_THREAD_SANITIZER)
  __tsan_acquire(const_cast<void*>(sync));
#endif
}

}  // namespace tsserve::server
