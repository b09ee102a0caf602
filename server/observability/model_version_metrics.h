#pragma once
// Prometheus series of the model repository, one set per loaded (or failed) version and
// removed with it, so the series stay bounded by what is loaded:
//
//   tsserve_model_state{model, version, state}    1 for the version's current state
//                                                 (loading | ready | failed | unloading)
//   tsserve_model_load_seconds{model, version}    how long its load took
//   tsserve_model_resident_bytes{model, version}  its parameters' and buffers' bytes
//   tsserve_model_load_failures_total{model}      loads that failed (kept while the
//                                                 process lives: an alert's input)
//
// Thread safety: any thread.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include "server/sync/mutex.h"

namespace tsserve::server {

class ModelVersionMetrics {
 public:
  // Registers the families in `registry`, which must outlive this object.
  explicit ModelVersionMetrics(prometheus::Registry& registry);

  // The version is now in `state`; `load_seconds` and `resident_bytes` as known (0: not).
  void set_version(const std::string& model, int64_t version, const std::string& state,
                   double load_seconds, int64_t resident_bytes);
  void count_load_failure(const std::string& model);
  // The version is gone: its series are removed.
  void remove_version(const std::string& model, int64_t version);

 private:
  struct Series {
    std::string state;
    prometheus::Gauge* state_gauge = nullptr;
    prometheus::Gauge* load_seconds = nullptr;
    prometheus::Gauge* resident_bytes = nullptr;
  };
  void remove_locked(Series& series) TSSERVE_REQUIRES(mutex_);

  // Constant after construction.
  prometheus::Family<prometheus::Gauge>* state_;
  prometheus::Family<prometheus::Gauge>* load_seconds_;
  prometheus::Family<prometheus::Gauge>* resident_bytes_;
  prometheus::Family<prometheus::Counter>* load_failures_;

  Mutex mutex_;
  std::map<std::pair<std::string, int64_t>, Series> versions_ TSSERVE_GUARDED_BY(mutex_);
};

}  // namespace tsserve::server
