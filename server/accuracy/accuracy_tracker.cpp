#include "server/accuracy/accuracy_tracker.h"

#include <utility>

namespace tsserve::server {

AccuracyTracker::AccuracyTracker(ForecastStore& store, AccuracyMetrics* metrics)
    : store_(store), metrics_(metrics) {}

bool AccuracyTracker::keep(IssuedForecast forecast) {
  if (forecast.times.empty()) {
    // Actuals are matched by time: without forecast times nothing could ever match.
    if (metrics_) metrics_->record_refused_no_timestamps();
    return false;
  }
  const StoreDrops drops = store_.add(std::move(forecast));
  if (metrics_) {
    metrics_->record_drops(drops);
    metrics_->set_store_entries(store_.entries());
  }
  return true;
}

ActualsOutcome AccuracyTracker::report(const ActualsReport& report,
                                       const ForecastStore::ScoreSink& also) {
  StoreDrops drops;
  const ActualsOutcome outcome = store_.match(
      report,
      [this, &also](const ScoredPoint& point) {
        if (metrics_) metrics_->record_scored(point);
        if (also) also(point);
      },
      &drops);
  if (metrics_) {
    metrics_->record_outcome(outcome);
    metrics_->record_drops(drops);
    metrics_->set_store_entries(store_.entries());
  }
  return outcome;
}

std::optional<std::vector<VersionAccuracy>> AccuracyTracker::accuracy() const {
  if (metrics_ == nullptr) return std::nullopt;
  return metrics_->snapshot();
}

}  // namespace tsserve::server
