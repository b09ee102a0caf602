#pragma once
// Forecast steps grouped for the accuracy metrics' `horizon` label: errors grow with the
// distance ahead, so one sum over all steps would hide a model that is good tomorrow and
// poor in three days. Buckets, in steps: 1-24, 25-48, 49-96, 97-192, 193-336, 337-720, 721+.
// On hourly data (ETTh) the first three are day 1, day 2 and days 3-4 (pred_len 96, the
// bundled models'); the next bounds are TSLib's standard horizons 192, 336, 720. Seven
// values at most, whatever the model, so the label's cardinality is fixed.

#include <cstdint>
#include <string>

namespace tsserve::server {

inline constexpr int kHorizonBucketCount = 7;

// REQUIRES: step >= 1. The bucket's index, 0 .. kHorizonBucketCount - 1.
int horizon_bucket(int64_t step);
// "1-24", ..., "721+".
const char* horizon_bucket_label(int bucket);

}  // namespace tsserve::server
