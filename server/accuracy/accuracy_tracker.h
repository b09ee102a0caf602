#pragma once
// The one object the services talk to for live accuracy: the forecast store and its
// metrics together, so every keep, drop and score is counted the same way.
//
// Thread safety: every member may be called from any thread.

#include <memory>
#include <optional>
#include <vector>

#include "server/accuracy/accuracy_metrics.h"
#include "server/accuracy/kept_forecasts.h"

namespace tsserve::server {

class AccuracyTracker {
 public:
  // `metrics` may be null (metrics off): the store still works. Both outlive the tracker.
  AccuracyTracker(KeptForecasts& store, AccuracyMetrics* metrics);

  // A Forecast with a series key was answered: keeps it when it has forecast times. OK
  // when kept (ForecastResponse.forecast_stored); otherwise why not: FAILED_PRECONDITION
  // without forecast times, UNAVAILABLE when a shared store cannot be reached (counted
  // in tsserve_forecast_store_refused_total either way).
  Status keep(IssuedForecast forecast);
  // keep(), begun now and finished by wait(), so that a batch's keeps go to a shared
  // store together (KeptForecasts::begin_keep).
  class Keeping {
   public:
    // keep()'s status (counted as keep() counts it). Called at most once.
    Status wait();

   private:
    friend class AccuracyTracker;
    AccuracyTracker* tracker_ = nullptr;
    std::unique_ptr<PendingKeep> pending_;  // null: refused before the store
    Status refused_;
  };
  Keeping begin_keep(IssuedForecast forecast);
  // Scores a ReportActuals request into *outcome. `also`, when set, sees every (forecast,
  // point) pair scored, after the metrics (Observe flags each point against its forecast
  // with it); it may run under the store's lock and must not call back into the tracker.
  // UNAVAILABLE when a shared store cannot be reached (nothing scored).
  Status report(const ActualsReport& report, ActualsOutcome* outcome,
                const KeptForecasts::ScoreSink& also = nullptr);
  // The accuracy counters as they stand; nullopt when they are not counted (metrics off).
  std::optional<std::vector<VersionAccuracy>> accuracy() const;

 private:
  void record_store(const StoreDrops& drops);

  KeptForecasts& store_;
  AccuracyMetrics* const metrics_;
};

}  // namespace tsserve::server
