// keep_freed_memory_for_reuse(): a freed forward-sized block comes back without page
// faults (the kernel is not asked for, and does not zero, the pages again), and an
// operator's own glibc settings win.
#include "tsserve/model/malloc_retention.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

namespace tsserve::model {
namespace {

long minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// A forward's pattern: several activations alive at once, every page written, then all
// freed. Together they exceed twice the largest, so glibc's default (self-adjusting)
// thresholds return them to the kernel at the end of every round.
constexpr std::size_t kActivations = 6;
constexpr std::size_t kActivationBytes = std::size_t{4} << 20;
constexpr long kPagesPerRound = static_cast<long>(kActivations * kActivationBytes / 4096);

void run_one_forward_pattern() {
  void* blocks[kActivations];
  for (void*& block : blocks) {
    block = std::malloc(kActivationBytes);
    ASSERT_NE(block, nullptr);
    std::memset(block, 1, kActivationBytes);
    asm volatile("" : : "r"(block) : "memory");  // the compiler may not drop the pair
  }
  for (std::size_t i = kActivations; i-- > 0;) std::free(blocks[i]);
}

EnvironmentLookup fake_environment(std::map<std::string, std::string> variables) {
  return [variables = std::move(variables)](const char* name) -> const char* {
    const auto found = variables.find(name);
    return found == variables.end() ? nullptr : found->second.c_str();
  };
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kGlibcAllocator = false;
#else
constexpr bool kGlibcAllocator = true;
#endif

TEST(MallocRetention, FreedForwardSizedBlocksAreReusedWithoutPageFaults) {
  if (!kGlibcAllocator) GTEST_SKIP() << "a sanitizer's allocator replaces glibc's here";
  const MallocRetentionResult result = keep_freed_memory_for_reuse({}, fake_environment({}));
  ASSERT_TRUE(result.applied) << result.detail;

  run_one_forward_pattern();  // the first round grows the heap: these faults are expected
  const long before = minor_faults();
  constexpr int kRounds = 8;
  for (int i = 0; i < kRounds; ++i) run_one_forward_pattern();
  const long faults = minor_faults() - before;
  // Returned to the kernel, every round would fault all its pages in again.
  EXPECT_LT(faults, kPagesPerRound / 4)
      << faults << " page faults over " << kRounds << " rounds of " << kPagesPerRound << " pages";
}

TEST(MallocRetention, TheOperatorsEnvironmentWins) {
  for (const auto& [name, value] :
       std::map<std::string, std::string>{{"MALLOC_TRIM_THRESHOLD_", "0"},
                                          {"MALLOC_MMAP_THRESHOLD_", "131072"},
                                          {"GLIBC_TUNABLES", "glibc.malloc.trim_threshold=0"}}) {
    const MallocRetentionResult result =
        keep_freed_memory_for_reuse({}, fake_environment({{name, value}}));
    EXPECT_FALSE(result.applied) << name;
    EXPECT_NE(result.detail.find(name), std::string::npos) << result.detail;
  }
}

TEST(MallocRetention, OtherTunablesDoNotStopIt) {
  if (!kGlibcAllocator) GTEST_SKIP() << "a sanitizer's allocator replaces glibc's here";
  const MallocRetentionResult result = keep_freed_memory_for_reuse(
      {}, fake_environment({{"GLIBC_TUNABLES", "glibc.malloc.arena_max=2"}}));
  EXPECT_TRUE(result.applied) << result.detail;
}

}  // namespace
}  // namespace tsserve::model
