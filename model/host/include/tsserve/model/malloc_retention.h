#pragma once
// Keep memory that LibTorch frees for the next forward, instead of giving it back to the
// kernel after every batch.
//
// A forward allocates its activations (megabytes for a batch) and frees them at the end.
// With glibc's default settings, blocks over the mmap threshold (128 KiB at first) are
// mmapped and unmapped each time, and free memory over the trim threshold at the top of a
// heap is returned with brk/madvise, so the next forward faults every page back in and
// the kernel zero-fills it: about 2,700 page faults per 64-row forward of the bundled
// model, a third to half of its time (tests/bench/benchmark_notes.md). Fixed thresholds
// keep the pages; the cost is resident memory up to the largest forward's working set,
// which the process needs at its peak anyway.
//
// The operator keeps the last word: when the environment already sets either threshold
// (MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_, or GLIBC_TUNABLES with
// glibc.malloc.mmap_threshold or glibc.malloc.trim_threshold), nothing is changed.

#include <cstddef>
#include <string>

#include "tsserve/model/environment_lookup.h"

namespace tsserve::model {

struct MallocRetentionSettings {
  // Allocations up to this size come from the heap, whose pages are reused; glibc's
  // maximum on 64-bit (larger values are refused). Setting it also stops glibc from
  // moving the threshold by itself.
  std::size_t mmap_threshold_bytes = std::size_t{32} << 20;
  // Free memory at the top of a heap is returned to the kernel only above this.
  std::size_t trim_threshold_bytes = std::size_t{128} << 20;
};

struct MallocRetentionResult {
  bool applied = false;
  // The settings applied, or why none were: for the start-up log.
  std::string detail;
};

// Process-wide; call once at start-up, before the model runs. `lookup` reads the
// environment (std::getenv unless a test gives its own).
MallocRetentionResult keep_freed_memory_for_reuse(const MallocRetentionSettings& settings = {},
                                                  const EnvironmentLookup& lookup = nullptr);

}  // namespace tsserve::model
