// sanitizer_canary KIND: commits one known bug, so tests/sanitizers/run.sh can check that
// the sanitizer build reports it. Without this, a build that lost its instrumentation, or
// runtime options or suppressions that silence reports, would pass every test unnoticed.
//   data-race | heap-use-after-free | signed-overflow | leak
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace {

// Values from the command line, so the compiler cannot fold the bugs away.
int data_race(int seed) {
  int counter = seed;
  std::thread other([&counter] { ++counter; });  // no lock, no atomic: a race
  ++counter;
  other.join();
  return counter;
}

int heap_use_after_free(int seed) {
  int* volatile values = new int[4]{seed, seed, seed, seed};
  delete[] values;
  return values[1];
}

int signed_overflow(int seed) {
  const int near_max = INT_MAX - 1;
  return near_max + seed;  // seed is 2: INT_MAX + 1
}

int leak(int seed) {
  void* volatile lost = std::malloc(64 + static_cast<std::size_t>(seed));
  lost = nullptr;
  return lost == nullptr ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr,
                 "usage: sanitizer_canary data-race|heap-use-after-free|signed-overflow|leak\n");
    return 2;
  }
  const int seed = argc;  // 2
  const char* kind = argv[1];
  int result = 0;
  if (std::strcmp(kind, "data-race") == 0) {
    result = data_race(seed);
  } else if (std::strcmp(kind, "heap-use-after-free") == 0) {
    result = heap_use_after_free(seed);
  } else if (std::strcmp(kind, "signed-overflow") == 0) {
    result = signed_overflow(seed);
  } else if (std::strcmp(kind, "leak") == 0) {
    result = leak(seed);
  } else {
    std::fprintf(stderr, "sanitizer_canary: unknown kind '%s'\n", kind);
    return 2;
  }
  std::printf("sanitizer_canary %s: %d (no report: the sanitizer missed it)\n", kind, result);
  return 0;
}
