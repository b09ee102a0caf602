#pragma once
// Percentiles of a set of durations (nearest rank on the sorted samples: p is the
// smallest sample with at least p% of the samples at or below it), as load generators
// report them.

#include <cstddef>
#include <vector>

namespace tsserve::client {

struct LatencySummary {
  size_t count = 0;
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, p999 = 0, max = 0;  // seconds
};

// `samples` is taken by value and sorted; empty -> all zero.
LatencySummary summarize_latencies(std::vector<double> samples);

// Nearest-rank percentile of sorted samples, 0 < percent <= 100.
double nearest_rank(const std::vector<double>& sorted, double percent);

}  // namespace tsserve::client
