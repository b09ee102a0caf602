#include "server/accuracy/horizon_buckets.h"

#include <array>

namespace tsserve::server {
namespace {

constexpr std::array<int64_t, kHorizonBucketCount - 1> kUpperBounds = {24, 48, 96, 192, 336, 720};
constexpr std::array<const char*, kHorizonBucketCount> kLabels = {
    "1-24", "25-48", "49-96", "97-192", "193-336", "337-720", "721+"};

}  // namespace

int horizon_bucket(int64_t step) {
  int bucket = 0;
  while (bucket < kHorizonBucketCount - 1 && step > kUpperBounds[static_cast<size_t>(bucket)]) {
    ++bucket;
  }
  return bucket;
}

const char* horizon_bucket_label(int bucket) { return kLabels[static_cast<size_t>(bucket)]; }

}  // namespace tsserve::server
