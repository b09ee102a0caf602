#include "server/accuracy/accuracy_metrics.h"

#include <cmath>

#include "server/accuracy/metric_families.h"

namespace tsserve::server {

AccuracyMetrics::AccuracyMetrics(prometheus::Registry& registry)
    : abs_error_(counter_family(registry, "tsserve_forecast_abs_error_total",
                                "Sum of |forecast - actual| over scored points, model space")),
      squared_error_(
          counter_family(registry, "tsserve_forecast_squared_error_total",
                         "Sum of (forecast - actual)^2 over scored points, model space")),
      points_(counter_family(registry, "tsserve_forecast_scored_points_total",
                             "Forecast points scored against reported actuals")),
      covered_(counter_family(registry, "tsserve_interval_covered_points_total",
                              "Scored points whose actual was inside the level's interval")),
      interval_points_(counter_family(registry, "tsserve_interval_scored_points_total",
                                      "Scored points that had an interval at the level")),
      nominal_level_(prometheus::BuildGauge()
                         .Name("tsserve_interval_nominal_level")
                         .Help("The nominal level of the interval series with this level label")
                         .Register(registry)) {
  auto& actuals = counter_family(registry, "tsserve_actuals_points_total",
                                 "Reported actual points: (forecast, point) pairs matched, or "
                                 "points unmatched by reason");
  matched_ = &actuals.Add({{"result", "matched"}});
  unknown_key_ = &actuals.Add({{"result", "unknown_key"}});
  not_finite_ = &actuals.Add({{"result", "not_finite"}});
  unknown_variable_ = &actuals.Add({{"result", "unknown_variable"}});
  no_forecast_ = &actuals.Add({{"result", "no_forecast"}});
  already_reported_ = &actuals.Add({{"result", "already_reported"}});
  entries_ = &prometheus::BuildGauge()
                  .Name("tsserve_forecast_store_entries")
                  .Help("Forecasts kept for ReportActuals")
                  .Register(registry)
                  .Add({});
  auto& dropped = counter_family(registry, "tsserve_forecast_store_dropped_total",
                                 "Kept forecasts removed by the store's limits");
  evicted_ = &dropped.Add({{"reason", "evicted"}});
  expired_ = &dropped.Add({{"reason", "expired"}});
  auto& refused = counter_family(registry, "tsserve_forecast_store_refused_total",
                                 "Forecasts with a series_key that were not kept");
  refused_no_timestamps_ = &refused.Add({{"reason", "no_forecast_timestamps"}});
  refused_store_unavailable_ = &refused.Add({{"reason", "store_unavailable"}});
}

AccuracyMetrics::VersionSeries& AccuracyMetrics::series_locked(const std::string& model,
                                                               const std::string& version) {
  const auto key = std::make_pair(model, version);
  const auto found = by_version_.find(key);
  if (found != by_version_.end()) return found->second;
  VersionSeries& series = by_version_[key];
  for (int b = 0; b < kHorizonBucketCount; ++b) {
    const prometheus::Labels labels{
        {"model", model}, {"version", version}, {"horizon", horizon_bucket_label(b)}};
    const auto i = static_cast<std::size_t>(b);
    series.abs_error[i] = &abs_error_.Add(labels);
    series.squared_error[i] = &squared_error_.Add(labels);
    series.points[i] = &points_.Add(labels);
  }
  return series;
}

AccuracyMetrics::LevelSeries* AccuracyMetrics::level_locked(VersionSeries& series,
                                                            const std::string& model,
                                                            const std::string& version,
                                                            double level) {
  for (LevelSeries& known : series.levels) {
    if (known.level == level) return &known;
  }
  if (series.levels.size() >= kMaxIntervalLevels) return nullptr;
  LevelSeries& added = series.levels.emplace_back();
  added.level = level;
  added.nominal =
      &nominal_level_.Add({{"model", model}, {"version", version}, {"level", level_label(level)}});
  added.nominal->Set(level);
  for (int b = 0; b < kHorizonBucketCount; ++b) {
    const prometheus::Labels labels{{"model", model},
                                    {"version", version},
                                    {"level", level_label(level)},
                                    {"horizon", horizon_bucket_label(b)}};
    added.covered[static_cast<std::size_t>(b)] = &covered_.Add(labels);
    added.scored[static_cast<std::size_t>(b)] = &interval_points_.Add(labels);
  }
  return &added;
}

std::vector<VersionAccuracy> AccuracyMetrics::snapshot() const {
  const MutexLock lock(mutex_);
  std::vector<VersionAccuracy> out;
  out.reserve(by_version_.size());
  for (const auto& [key, series] : by_version_) {
    VersionAccuracy& version = out.emplace_back();
    version.model = key.first;
    version.version = key.second;
    for (std::size_t b = 0; b < kHorizonBucketCount; ++b) {
      version.horizons[b] = {series.abs_error[b]->Value(), series.squared_error[b]->Value(),
                             series.points[b]->Value()};
    }
    for (const LevelSeries& level : series.levels) {
      LevelCoverage& coverage = version.levels.emplace_back();
      coverage.level = level.level;
      for (std::size_t b = 0; b < kHorizonBucketCount; ++b) {
        coverage.covered[b] = level.covered[b]->Value();
        coverage.scored[b] = level.scored[b]->Value();
      }
    }
  }
  return out;
}

void AccuracyMetrics::prepare(const std::string& model, const std::string& version) {
  const MutexLock lock(mutex_);
  series_locked(model, version);
}

void AccuracyMetrics::remove(const std::string& model, const std::string& version) {
  const MutexLock lock(mutex_);
  const auto found = by_version_.find(std::make_pair(model, version));
  if (found == by_version_.end()) return;
  const VersionSeries& series = found->second;
  for (std::size_t b = 0; b < kHorizonBucketCount; ++b) {
    abs_error_.Remove(series.abs_error[b]);
    squared_error_.Remove(series.squared_error[b]);
    points_.Remove(series.points[b]);
  }
  for (const LevelSeries& level : series.levels) {
    for (std::size_t b = 0; b < kHorizonBucketCount; ++b) {
      covered_.Remove(level.covered[b]);
      interval_points_.Remove(level.scored[b]);
    }
    nominal_level_.Remove(level.nominal);
  }
  by_version_.erase(found);
}

void AccuracyMetrics::record_scored(const ScoredPoint& point) {
  const double error = point.forecast_value - point.actual;
  const auto bucket = static_cast<std::size_t>(horizon_bucket(point.step));
  const MutexLock lock(mutex_);
  VersionSeries& series = series_locked(point.model, point.version);
  series.abs_error[bucket]->Increment(std::fabs(error));
  series.squared_error[bucket]->Increment(error * error);
  series.points[bucket]->Increment();
  for (const ScoredBand& band : point.bands) {
    LevelSeries* level = level_locked(series, point.model, point.version, band.level);
    if (level == nullptr) continue;
    level->scored[bucket]->Increment();
    if (band.lower <= point.actual && point.actual <= band.upper) {
      level->covered[bucket]->Increment();
    }
  }
}

void AccuracyMetrics::record_outcome(const ActualsOutcome& outcome) {
  matched_->Increment(static_cast<double>(outcome.matched));
  unknown_key_->Increment(static_cast<double>(outcome.unknown_key));
  not_finite_->Increment(static_cast<double>(outcome.not_finite));
  unknown_variable_->Increment(static_cast<double>(outcome.unknown_variable));
  no_forecast_->Increment(static_cast<double>(outcome.no_forecast));
  already_reported_->Increment(static_cast<double>(outcome.already_reported));
}

void AccuracyMetrics::record_drops(const StoreDrops& drops) {
  evicted_->Increment(static_cast<double>(drops.evicted));
  expired_->Increment(static_cast<double>(drops.expired));
}

void AccuracyMetrics::record_refused_no_timestamps() { refused_no_timestamps_->Increment(); }

void AccuracyMetrics::record_refused_store_unavailable() {
  refused_store_unavailable_->Increment();
}

void AccuracyMetrics::set_store_entries(std::size_t entries) {
  entries_->Set(static_cast<double>(entries));
}

}  // namespace tsserve::server
