#pragma once
// Live forecast accuracy on the server's Prometheus registry, as counters and sums so
// Prometheus computes rolling figures over any window:
//
//   tsserve_forecast_abs_error_total{model,version,horizon}      counter |forecast - actual|
//   tsserve_forecast_squared_error_total{model,version,horizon}  counter (forecast - actual)^2
//   tsserve_forecast_scored_points_total{model,version,horizon} counter points scored
//   tsserve_interval_covered_points_total{model,version,level,horizon} counter actual in band
//   tsserve_interval_scored_points_total{model,version,level,horizon}  counter band scored
//   tsserve_interval_nominal_level{model,version,level} gauge  the level as a number, so an
//       alert can compare coverage with it (PromQL cannot read a label as a number)
//   tsserve_actuals_points_total{result}           counter reported points: result="matched"
//       counts (forecast, point) pairs scored; the others (unknown_key, not_finite,
//       unknown_variable, no_forecast, already_reported) count points (ReportActualsResponse)
//   tsserve_forecast_store_entries                 gauge   forecasts kept now
//   tsserve_forecast_store_dropped_total{reason}   counter evicted (LRU, max entries) | expired
//   tsserve_forecast_store_refused_total{reason}   counter keyed forecasts not kept:
//       no_forecast_timestamps (the request's timestamps absent or uneven) |
//       store_unavailable (a shared store could not be reached)
//
// Errors are in the model's space (scaled when the request's scaler applied), so MAE =
// rate(abs_error_total) / rate(scored_points_total), MSE likewise, comparable to the
// published (scaled) figures. `horizon` is horizon_buckets.h's; no series key is ever a
// label. Series per (model, version) are made on first use; levels are capped at
// kMaxIntervalLevels per model version (bands at further levels are not scored), so the
// cardinality stays bounded even if a client could pick levels freely.
//
// Thread safety: every member may be called from any thread.

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <array>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "server/accuracy/accuracy_snapshot.h"
#include "server/accuracy/kept_forecasts.h"
#include "server/accuracy/horizon_buckets.h"
#include "server/request/actuals_report.h"
#include "server/sync/mutex.h"

namespace tsserve::server {

inline constexpr std::size_t kMaxIntervalLevels = 8;

class AccuracyMetrics {
 public:
  explicit AccuracyMetrics(prometheus::Registry& registry);
  AccuracyMetrics(const AccuracyMetrics&) = delete;
  AccuracyMetrics& operator=(const AccuracyMetrics&) = delete;

  // Creates the error series of a served model version at 0, so they are exported (and
  // dashboards find them) before its first report. Interval series appear with the first
  // band scored at a level.
  void prepare(const std::string& model, const std::string& version);
  // Removes every series of an unloaded version from the exposition (a dashboard must not
  // show a version that no longer serves). A forecast of it still kept and scored later
  // brings its error series back, at that score: the forecast was issued, so it counts.
  void remove(const std::string& model, const std::string& version);
  // One (forecast, point) pair: its error and, per band, whether the actual was inside.
  void record_scored(const ScoredPoint& point);
  void record_outcome(const ActualsOutcome& outcome);
  void record_drops(const StoreDrops& drops);
  void record_refused_no_timestamps();
  void record_refused_store_unavailable();
  void set_store_entries(std::size_t entries);
  // Every version's counters as they stand, by model then version.
  std::vector<VersionAccuracy> snapshot() const;

 private:
  struct LevelSeries {
    double level = 0;
    std::array<prometheus::Counter*, kHorizonBucketCount> covered{}, scored{};
    prometheus::Gauge* nominal = nullptr;
  };
  struct VersionSeries {
    std::array<prometheus::Counter*, kHorizonBucketCount> abs_error{}, squared_error{}, points{};
    std::vector<LevelSeries> levels;  // at most kMaxIntervalLevels
  };
  VersionSeries& series_locked(const std::string& model, const std::string& version)
      TSSERVE_REQUIRES(mutex_);
  LevelSeries* level_locked(VersionSeries& series, const std::string& model,
                            const std::string& version, double level) TSSERVE_REQUIRES(mutex_);

  // Constant after construction.
  prometheus::Family<prometheus::Counter>& abs_error_;
  prometheus::Family<prometheus::Counter>& squared_error_;
  prometheus::Family<prometheus::Counter>& points_;
  prometheus::Family<prometheus::Counter>& covered_;
  prometheus::Family<prometheus::Counter>& interval_points_;
  prometheus::Family<prometheus::Gauge>& nominal_level_;
  prometheus::Counter* matched_ = nullptr;
  prometheus::Counter* unknown_key_ = nullptr;
  prometheus::Counter* not_finite_ = nullptr;
  prometheus::Counter* unknown_variable_ = nullptr;
  prometheus::Counter* no_forecast_ = nullptr;
  prometheus::Counter* already_reported_ = nullptr;
  prometheus::Gauge* entries_ = nullptr;
  prometheus::Counter* evicted_ = nullptr;
  prometheus::Counter* expired_ = nullptr;
  prometheus::Counter* refused_no_timestamps_ = nullptr;
  prometheus::Counter* refused_store_unavailable_ = nullptr;

  mutable Mutex mutex_;
  std::map<std::pair<std::string, std::string>, VersionSeries> by_version_
      TSSERVE_GUARDED_BY(mutex_);
};

}  // namespace tsserve::server
