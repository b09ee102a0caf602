#pragma once
// Live series on the server's Prometheus registry:
//
//   tsserve_observed_points_total{model,version}          counter new points appended
//       (one per time and variable), by the version the key's call resolved
//   tsserve_observed_checked_points_total{model,version,level}  counter new points whose
//       forecast had an interval at the level
//   tsserve_observed_outside_points_total{model,version,level}  counter those outside it
//   tsserve_series_store_keys / tsserve_series_store_bytes       gauges  the store now
//   tsserve_series_store_evicted_total                     counter keys dropped by its limits
//   tsserve_series_snapshot_writes_total{result}           counter ok | failed
//
// checked and outside are labelled by the forecast that flagged the point, so that
// outside / checked is a coverage miss rate comparable with 1 - level: an alert on it well
// above 1 - level (deploy/prometheus) says the series left what the calibration knew.
// Levels are capped at kMaxIntervalLevels per version, as the accuracy metrics' are.
//
// Thread safety: every member may be called from any thread.

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "server/live/point_flags.h"
#include "server/sync/mutex.h"

namespace tsserve::server {

class LiveSeriesMetrics {
 public:
  explicit LiveSeriesMetrics(prometheus::Registry& registry);
  LiveSeriesMetrics(const LiveSeriesMetrics&) = delete;
  LiveSeriesMetrics& operator=(const LiveSeriesMetrics&) = delete;

  void record_observed(const std::string& model, const std::string& version, int64_t points);
  // One call's new points' flags: each counted per interval level of its forecast.
  void record_flags(const std::vector<PointFlag>& flags);
  void set_store(std::size_t keys, std::size_t bytes);
  void record_evicted(int64_t keys);
  void record_snapshot(bool ok);
  // An unloaded version's series leave the exposition (observed, checked and outside at
  // every level), as its request and accuracy series do, and stay out: a point checked
  // later against a forecast that version made (a key's kept forecast) is not counted,
  // until serve_version() says the version is served again.
  void remove_version(const std::string& model, const std::string& version);
  void serve_version(const std::string& model, const std::string& version);

 private:
  struct LevelCounters {
    prometheus::Counter* checked = nullptr;
    prometheus::Counter* outside = nullptr;
  };
  // Null when the version already has kMaxIntervalLevels levels, or was removed.
  LevelCounters* level_locked(const std::string& model, const std::string& version, double level)
      TSSERVE_REQUIRES(mutex_);

  prometheus::Family<prometheus::Counter>& observed_;
  prometheus::Family<prometheus::Counter>& checked_;
  prometheus::Family<prometheus::Counter>& outside_;
  prometheus::Gauge* keys_ = nullptr;
  prometheus::Gauge* bytes_ = nullptr;
  prometheus::Counter* evicted_ = nullptr;
  prometheus::Counter* snapshot_ok_ = nullptr;
  prometheus::Counter* snapshot_failed_ = nullptr;

  Mutex mutex_;
  std::map<std::pair<std::string, std::string>, prometheus::Counter*> observed_by_version_
      TSSERVE_GUARDED_BY(mutex_);
  std::map<std::tuple<std::string, std::string, double>, LevelCounters> levels_
      TSSERVE_GUARDED_BY(mutex_);
  std::map<std::pair<std::string, std::string>, std::size_t> level_count_
      TSSERVE_GUARDED_BY(mutex_);
  std::set<std::pair<std::string, std::string>> removed_ TSSERVE_GUARDED_BY(mutex_);
};

}  // namespace tsserve::server
