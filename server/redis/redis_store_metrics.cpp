#include "server/redis/redis_store_metrics.h"

namespace tsserve::server {
namespace {

// 50 us (a pipelined call on one host) to 1 s (the default timeout).
prometheus::Histogram::BucketBoundaries round_trip_buckets() {
  return {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.25, 1.0};
}

}  // namespace

RedisStoreMetrics::RedisStoreMetrics(prometheus::Registry& registry)
    : up_(&prometheus::BuildGauge()
               .Name("tsserve_series_store_up")
               .Help("1 while the shared series store's last call reached it, 0 after one failed")
               .Register(registry)
               .Add({})) {
  auto& failures = prometheus::BuildCounter()
                       .Name("tsserve_series_store_failures_total")
                       .Help("Calls to the shared series store that failed (answered UNAVAILABLE)")
                       .Register(registry);
  auto& seconds = prometheus::BuildHistogram()
                      .Name("tsserve_series_store_seconds")
                      .Help("Round trips of one call to the shared series store")
                      .Register(registry);
  for (const char* operation :
       {"window_read", "window_write", "forecast_keep", "forecast_read", "forecast_mark"}) {
    by_operation_[operation] = {&failures.Add({{"operation", operation}}),
                                &seconds.Add({{"operation", operation}}, round_trip_buckets())};
  }
  up_->Set(1);
}

void RedisStoreMetrics::record_call(const std::string& operation, double seconds, bool ok) {
  const auto found = by_operation_.find(operation);
  if (found == by_operation_.end()) return;  // a test's own commands
  found->second.seconds->Observe(seconds);
  if (!ok) found->second.failures->Increment();
}

void RedisStoreMetrics::set_up(bool up) { up_->Set(up ? 1 : 0); }

}  // namespace tsserve::server
