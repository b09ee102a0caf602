#pragma once
// The contract between a fuzz target and the two mains it links with:
//  - libFuzzer's (-DTSSERVE_FUZZ=ON, clang): mutates inputs and calls the target millions
//    of times under AddressSanitizer and UndefinedBehaviorSanitizer;
//  - replay_main.cpp (every build): calls it once per file of the seed corpus and the
//    crash regressions, so both are a regression suite of the normal test run.
// A target checks what it can about each answer with FUZZ_CHECK, which prints the broken
// invariant and aborts: libFuzzer then saves the input as a crash, and a replay fails.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace tsserve::fuzz {

[[noreturn]] inline void invariant_failed(const char* file, int line, const char* condition,
                                          const std::string& detail) {
  std::fprintf(stderr, "%s:%d: invariant broken: %s\n  %s\n", file, line, condition,
               detail.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace tsserve::fuzz

// FUZZ_CHECK(condition, detail): `detail` (a std::string expression) is evaluated only when
// the condition fails, so it may be costly to build.
#define FUZZ_CHECK(condition, detail)                                              \
  do {                                                                             \
    if (!(condition)) {                                                            \
      ::tsserve::fuzz::invariant_failed(__FILE__, __LINE__, #condition, (detail)); \
    }                                                                              \
  } while (false)
