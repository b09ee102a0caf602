#pragma once
// The key sample of ProbSparse attention, as a pure function of a seed and the shapes.
//
// Informer draws the sample from the global random stream, so the same request gets a
// different answer on every call. Here the sample is
//   h = splitmix64(seed); h = splitmix64(h ^ L_Q); h = splitmix64(h ^ L_K);
//   h = splitmix64(h ^ U_part);
//   index[l, j] = splitmix64(h + l * U_part + j) mod L_K      (arithmetic mod 2^64)
// shared by every batch row and head, so a row's result never depends on what else is in
// the batch, and a Python user can reproduce it in a few lines.

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace tsserve::model {

uint64_t splitmix64(uint64_t z);

// [L_Q, U_part] int64 key indices in [0, L_K), on the CPU.
at::Tensor prob_sample_index(uint64_t seed, int64_t query_length, int64_t key_length,
                             int64_t samples_per_query);

}  // namespace tsserve::model
