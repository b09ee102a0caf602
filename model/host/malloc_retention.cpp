#include "tsserve/model/malloc_retention.h"

#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace tsserve::model {
namespace {

// Where the environment already sets glibc's thresholds (what this would set), if it does.
const char* operator_threshold_setting(const EnvironmentLookup& lookup) {
  for (const char* name : {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"}) {
    const char* value = lookup(name);
    if (value != nullptr && *value != '\0') return name;
  }
  const char* tunables = lookup("GLIBC_TUNABLES");
  if (tunables != nullptr && (std::strstr(tunables, "glibc.malloc.mmap_threshold") != nullptr ||
                              std::strstr(tunables, "glibc.malloc.trim_threshold") != nullptr)) {
    return "GLIBC_TUNABLES";
  }
  return nullptr;
}

std::string mib(std::size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

}  // namespace

MallocRetentionResult keep_freed_memory_for_reuse(const MallocRetentionSettings& settings,
                                                  const EnvironmentLookup& lookup) {
  const EnvironmentLookup environment = environment_or(lookup);
  if (const char* name = operator_threshold_setting(environment)) {
    return {false, std::string("left as set by ") + name + " in the environment"};
  }
#if defined(__GLIBC__)
  // mallopt answers 0 when a value is out of range, and under a sanitizer, whose
  // allocator replaces glibc's and ignores these settings.
  if (mallopt(M_MMAP_THRESHOLD, static_cast<int>(settings.mmap_threshold_bytes)) == 0 ||
      mallopt(M_TRIM_THRESHOLD, static_cast<int>(settings.trim_threshold_bytes)) == 0) {
    return {false, "mallopt refused the thresholds (an allocator other than glibc's?)"};
  }
  return {true, "freed memory kept for reuse (mmap threshold " +
                    mib(settings.mmap_threshold_bytes) + ", trim threshold " +
                    mib(settings.trim_threshold_bytes) + ")"};
#else
  (void)settings;
  return {false, "not glibc: the allocator's own defaults apply"};
#endif
}

}  // namespace tsserve::model
