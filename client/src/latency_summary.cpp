#include "tsserve/client/latency_summary.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tsserve::client {

double nearest_rank(const std::vector<double>& sorted, double percent) {
  if (sorted.empty()) return 0;
  // The epsilon keeps 99.9% of 1000 at rank 999 (in binary, 0.999 * 1000 is a hair over).
  const auto rank = static_cast<size_t>(
      std::ceil(percent / 100.0 * static_cast<double>(sorted.size()) - 1e-9));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

LatencySummary summarize_latencies(std::vector<double> samples) {
  LatencySummary summary;
  if (samples.empty()) return summary;
  std::sort(samples.begin(), samples.end());
  summary.count = samples.size();
  summary.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  summary.p50 = nearest_rank(samples, 50);
  summary.p90 = nearest_rank(samples, 90);
  summary.p99 = nearest_rank(samples, 99);
  summary.p999 = nearest_rank(samples, 99.9);
  summary.max = samples.back();
  return summary;
}

}  // namespace tsserve::client
