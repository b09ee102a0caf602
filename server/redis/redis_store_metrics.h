#pragma once
// The shared series store's own metrics, on the server's Prometheus registry:
//
//   tsserve_series_store_up                            gauge   1 while the last call reached
//                                                              the store, 0 after one failed
//   tsserve_series_store_failures_total{operation}     counter calls that failed (UNAVAILABLE)
//   tsserve_series_store_seconds{operation}            histogram one call's round trip(s)
//
// operation: window_read, window_write, forecast_keep, forecast_read, forecast_mark.
//
// Thread safety: every member may be called from any thread.

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <map>
#include <string>

namespace tsserve::server {

class RedisStoreMetrics {
 public:
  explicit RedisStoreMetrics(prometheus::Registry& registry);

  // `operation` is one of the names above (their series are made once, here).
  void record_call(const std::string& operation, double seconds, bool ok);
  void set_up(bool up);

 private:
  struct Series {
    prometheus::Counter* failures;
    prometheus::Histogram* seconds;
  };
  prometheus::Gauge* up_;
  std::map<std::string, Series> by_operation_;  // constant after construction
};

}  // namespace tsserve::server
