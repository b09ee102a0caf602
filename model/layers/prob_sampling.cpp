#include "tsserve/model/prob_sampling.h"

#include <ATen/ATen.h>

namespace tsserve::model {

uint64_t splitmix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

at::Tensor prob_sample_index(uint64_t seed, int64_t query_length, int64_t key_length,
                             int64_t samples_per_query) {
  uint64_t h = splitmix64(seed);
  h = splitmix64(h ^ static_cast<uint64_t>(query_length));
  h = splitmix64(h ^ static_cast<uint64_t>(key_length));
  h = splitmix64(h ^ static_cast<uint64_t>(samples_per_query));

  at::Tensor index = at::empty({query_length, samples_per_query}, at::kLong);
  int64_t* out = index.data_ptr<int64_t>();
  const uint64_t count = static_cast<uint64_t>(query_length * samples_per_query);
  for (uint64_t i = 0; i < count; ++i) {
    out[i] = static_cast<int64_t>(splitmix64(h + i) % static_cast<uint64_t>(key_length));
  }
  return index;
}

}  // namespace tsserve::model
