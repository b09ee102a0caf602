#include "server/accuracy/accuracy_tracker.h"

#include <utility>

namespace tsserve::server {

AccuracyTracker::AccuracyTracker(KeptForecasts& store, AccuracyMetrics* metrics)
    : store_(store), metrics_(metrics) {}

Status AccuracyTracker::keep(IssuedForecast forecast) {
  return begin_keep(std::move(forecast)).wait();
}

AccuracyTracker::Keeping AccuracyTracker::begin_keep(IssuedForecast forecast) {
  Keeping keeping;
  keeping.tracker_ = this;
  if (forecast.times.empty()) {
    // Actuals are matched by time: without forecast times nothing could ever match.
    if (metrics_) metrics_->record_refused_no_timestamps();
    keeping.refused_ = {StatusCode::kFailedPrecondition,
                        "series_key: the forecast was not kept: the request had no timestamps, "
                        "so actuals could not be matched to its points"};
    return keeping;
  }
  keeping.pending_ = store_.begin_keep(std::move(forecast));
  return keeping;
}

Status AccuracyTracker::Keeping::wait() {
  if (pending_ == nullptr) return refused_;
  StoreDrops drops;
  const Status kept = pending_->wait(&drops);
  pending_.reset();
  if (tracker_->metrics_) {
    if (!kept.ok()) tracker_->metrics_->record_refused_store_unavailable();
    tracker_->record_store(drops);
  }
  return kept;
}

Status AccuracyTracker::report(const ActualsReport& report, ActualsOutcome* outcome,
                               const KeptForecasts::ScoreSink& also) {
  StoreDrops drops;
  TSSERVE_RETURN_IF_ERROR(store_.score(
      report,
      [this, &also](const ScoredPoint& point) {
        if (metrics_) metrics_->record_scored(point);
        if (also) also(point);
      },
      &drops, outcome));
  if (metrics_) {
    metrics_->record_outcome(*outcome);
    record_store(drops);
  }
  return Status();
}

void AccuracyTracker::record_store(const StoreDrops& drops) {
  metrics_->record_drops(drops);
  if (const auto entries = store_.held_entries()) metrics_->set_store_entries(*entries);
}

std::optional<std::vector<VersionAccuracy>> AccuracyTracker::accuracy() const {
  if (metrics_ == nullptr) return std::nullopt;
  return metrics_->snapshot();
}

}  // namespace tsserve::server
