#pragma once
// The one object the services talk to for live accuracy: the forecast store and its
// metrics together, so every keep, drop and score is counted the same way.
//
// Thread safety: every member may be called from any thread.

#include <memory>
#include <optional>
#include <vector>

#include "server/accuracy/accuracy_metrics.h"
#include "server/accuracy/forecast_store.h"

namespace tsserve::server {

class AccuracyTracker {
 public:
  // `metrics` may be null (metrics off): the store still works. Both outlive the tracker.
  AccuracyTracker(ForecastStore& store, AccuracyMetrics* metrics);

  // A Forecast with a series key was answered: keeps it when it has forecast times.
  // Returns whether it was kept (ForecastResponse.forecast_stored).
  bool keep(IssuedForecast forecast);
  // Scores a ReportActuals request. `also`, when set, sees every (forecast, point) pair
  // scored, after the metrics (Observe flags each point against its forecast with it);
  // it runs under the store's lock and must not call back into the tracker.
  ActualsOutcome report(const ActualsReport& report,
                        const ForecastStore::ScoreSink& also = nullptr);
  // The accuracy counters as they stand; nullopt when they are not counted (metrics off).
  std::optional<std::vector<VersionAccuracy>> accuracy() const;

 private:
  ForecastStore& store_;
  AccuracyMetrics* const metrics_;
};

}  // namespace tsserve::server
