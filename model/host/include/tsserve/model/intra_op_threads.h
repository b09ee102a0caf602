#pragma once
// The threads one forward may use, in every pool that runs its arithmetic.
//
// at::set_num_threads sizes LibTorch's intra-op pool (and MKL's), but not OpenBLAS's:
// Debian's LibTorch calls the system BLAS, and OpenBLAS (libopenblas0-pthread) keeps its
// own pool, one thread per core. Two threads that call sgemm at once (two batcher
// instances, or a version loading beside one serving) then share that pool: one waits
// while the other's helpers spin, and a 20 ms iTransformer batch took 250-800 ms on
// 2 cores (tests/bench/benchmark_notes.md, "BLAS pool"). Giving the BLAS the intra-op
// count makes "1 intra-op thread" mean one thread, as the setting says.
//
// The operator keeps the last word: OPENBLAS_NUM_THREADS or GOTO_NUM_THREADS in the
// environment leaves OpenBLAS's pool as they set it.

#include <optional>
#include <string>

#include "tsserve/model/environment_lookup.h"

namespace tsserve::model {

// Process-wide (both pools are): the last call wins. REQUIRES: threads >= 1.
void set_intra_op_threads(int threads, const EnvironmentLookup& lookup = nullptr);

// The OpenBLAS pool's size now; nullopt when the process's BLAS is not OpenBLAS.
std::optional<int> blas_pool_threads();

// For the log: the BLAS pool's size and who set it, e.g. "OpenBLAS pool: 1 thread".
std::string describe_blas_pool(const EnvironmentLookup& lookup = nullptr);

}  // namespace tsserve::model
