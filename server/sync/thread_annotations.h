#pragma once
// Clang's thread-safety annotations (https://clang.llvm.org/docs/ThreadSafetyAnalysis.html)
// as macros, so the locking rules written beside members and functions are checked by the
// compiler (-Wthread-safety; tests/static/ runs it) instead of trusted as comments.
//
// Under GCC, which has no such analysis, every macro is empty: the build is unchanged.
//
// The names carry a TSSERVE_ prefix because gRPC's headers bring Abseil's older unprefixed
// GUARDED_BY, REQUIRES, ... (absl/base/internal/thread_annotations.h) into the same
// translation units, and a second definition of those would clash.
//
// The capability types are tsserve::Mutex and tsserve::MutexLock (mutex.h); std::mutex
// carries no annotations, so a member guarded by one is never checked.

#if defined(__clang__)
#define TSSERVE_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define TSSERVE_THREAD_ANNOTATION(x)
#endif

// On a class: its objects are capabilities (a mutex); `name` appears in the diagnostics.
#define TSSERVE_CAPABILITY(name) TSSERVE_THREAD_ANNOTATION(capability(name))
// On a class: an RAII object that holds a capability from construction to destruction.
#define TSSERVE_SCOPED_CAPABILITY TSSERVE_THREAD_ANNOTATION(scoped_lockable)

// On a data member: reading or writing it requires holding `mutex`.
#define TSSERVE_GUARDED_BY(mutex) TSSERVE_THREAD_ANNOTATION(guarded_by(mutex))
// On a pointer member: what it points to requires holding `mutex` (the pointer itself not).
#define TSSERVE_PT_GUARDED_BY(mutex) TSSERVE_THREAD_ANNOTATION(pt_guarded_by(mutex))
// On a mutex member: the order in which two mutexes may be taken together.
#define TSSERVE_ACQUIRED_BEFORE(...) TSSERVE_THREAD_ANNOTATION(acquired_before(__VA_ARGS__))
#define TSSERVE_ACQUIRED_AFTER(...) TSSERVE_THREAD_ANNOTATION(acquired_after(__VA_ARGS__))

// On a function: the caller must hold the mutexes (exclusively / shared) ...
#define TSSERVE_REQUIRES(...) TSSERVE_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define TSSERVE_REQUIRES_SHARED(...) \
  TSSERVE_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))
// ... or must not hold them (the function takes them itself).
#define TSSERVE_EXCLUDES(...) TSSERVE_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))

// On a function: it takes / releases the mutexes (none named: `this`, the mutex itself).
#define TSSERVE_ACQUIRE(...) TSSERVE_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define TSSERVE_ACQUIRE_SHARED(...) \
  TSSERVE_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
#define TSSERVE_RELEASE(...) TSSERVE_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define TSSERVE_RELEASE_SHARED(...) \
  TSSERVE_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
// On a function returning bool: it takes the mutexes when it returns `result`.
#define TSSERVE_TRY_ACQUIRE(...) TSSERVE_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
// On a function: returns only when the mutex is held (the analysis then assumes it is).
#define TSSERVE_ASSERT_CAPABILITY(mutex) TSSERVE_THREAD_ANNOTATION(assert_capability(mutex))
// On a function: it returns a reference to `mutex`.
#define TSSERVE_RETURN_CAPABILITY(mutex) TSSERVE_THREAD_ANNOTATION(lock_returned(mutex))

// On a function: the analysis skips its body. The last resort, for a function whose
// locking the analysis cannot follow; say why beside every use.
#define TSSERVE_NO_THREAD_SAFETY_ANALYSIS TSSERVE_THREAD_ANNOTATION(no_thread_safety_analysis)
