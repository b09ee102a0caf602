#pragma once
// The live accuracy counters of each served model version as they stand (totals since the
// version was first scored, not a rate over a window: Prometheus computes those). What the
// JSON API's GET /v1/accuracy and the console show.

#include <array>
#include <string>
#include <vector>

#include "server/accuracy/horizon_buckets.h"

namespace tsserve::server {

struct HorizonErrors {
  double abs_error = 0;      // sum of |forecast - actual|, model space
  double squared_error = 0;  // sum of (forecast - actual)^2
  double points = 0;         // points scored
};

struct LevelCoverage {
  double level = 0;                                   // nominal
  std::array<double, kHorizonBucketCount> covered{};  // actual inside the band
  std::array<double, kHorizonBucketCount> scored{};   // points that had the band
};

struct VersionAccuracy {
  std::string model;
  std::string version;
  std::array<HorizonErrors, kHorizonBucketCount> horizons{};  // by horizon_bucket()
  std::vector<LevelCoverage> levels;                          // in the order first scored
};

}  // namespace tsserve::server
