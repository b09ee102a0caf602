#include "server/live/live_series_metrics.h"

#include "server/accuracy/accuracy_metrics.h"
#include "server/accuracy/metric_families.h"

namespace tsserve::server {
namespace {

prometheus::Gauge& gauge(prometheus::Registry& registry, const char* name, const char* help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(registry).Add({});
}

}  // namespace

LiveSeriesMetrics::LiveSeriesMetrics(prometheus::Registry& registry)
    : observed_(counter_family(registry, "tsserve_observed_points_total",
                               "New points appended by Observe (one per time and variable)")),
      checked_(counter_family(registry, "tsserve_observed_checked_points_total",
                              "Observed points whose forecast had an interval at the level")),
      outside_(counter_family(registry, "tsserve_observed_outside_points_total",
                              "Observed points outside their forecast's interval at the level")) {
  keys_ = &gauge(registry, "tsserve_series_store_keys", "Series keys whose window is kept");
  bytes_ = &gauge(registry, "tsserve_series_store_bytes", "Bytes of the kept series windows");
  evicted_ = &counter_family(registry, "tsserve_series_store_evicted_total",
                             "Series keys dropped by the store's limits (least recently observed)")
                  .Add({});
  auto& writes = counter_family(registry, "tsserve_series_snapshot_writes_total",
                                "Snapshots of the series store written, by result");
  snapshot_ok_ = &writes.Add({{"result", "ok"}});
  snapshot_failed_ = &writes.Add({{"result", "failed"}});
}

void LiveSeriesMetrics::record_observed(const std::string& model, const std::string& version,
                                        int64_t points) {
  const MutexLock lock(mutex_);
  if (removed_.count({model, version}) != 0) return;
  prometheus::Counter*& counter = observed_by_version_[{model, version}];
  if (counter == nullptr) counter = &observed_.Add({{"model", model}, {"version", version}});
  counter->Increment(static_cast<double>(points));
}

LiveSeriesMetrics::LevelCounters* LiveSeriesMetrics::level_locked(const std::string& model,
                                                                  const std::string& version,
                                                                  double level) {
  if (removed_.count({model, version}) != 0) return nullptr;
  const auto key = std::make_tuple(model, version, level);
  const auto found = levels_.find(key);
  if (found != levels_.end()) return &found->second;
  std::size_t& count = level_count_[{model, version}];
  if (count >= kMaxIntervalLevels) return nullptr;
  ++count;
  const prometheus::Labels labels{
      {"model", model}, {"version", version}, {"level", level_label(level)}};
  LevelCounters& added = levels_[key];
  added.checked = &checked_.Add(labels);
  added.outside = &outside_.Add(labels);
  return &added;
}

void LiveSeriesMetrics::record_flags(const std::vector<PointFlag>& flags) {
  const MutexLock lock(mutex_);
  for (const PointFlag& flag : flags) {
    if (!flag.scored) continue;
    for (const IntervalFlagValue& interval : flag.intervals) {
      LevelCounters* level = level_locked(flag.model, flag.version, interval.level);
      if (level == nullptr) continue;
      level->checked->Increment();
      if (interval.outside) level->outside->Increment();
    }
  }
}

void LiveSeriesMetrics::remove_version(const std::string& model, const std::string& version) {
  const MutexLock lock(mutex_);
  const auto observed = observed_by_version_.find({model, version});
  if (observed != observed_by_version_.end()) {
    observed_.Remove(observed->second);
    observed_by_version_.erase(observed);
  }
  for (auto it = levels_.begin(); it != levels_.end();) {
    if (std::get<0>(it->first) == model && std::get<1>(it->first) == version) {
      checked_.Remove(it->second.checked);
      outside_.Remove(it->second.outside);
      it = levels_.erase(it);
    } else {
      ++it;
    }
  }
  level_count_.erase({model, version});
  removed_.insert({model, version});
}

void LiveSeriesMetrics::serve_version(const std::string& model, const std::string& version) {
  const MutexLock lock(mutex_);
  removed_.erase({model, version});
}

void LiveSeriesMetrics::set_store(std::size_t keys, std::size_t bytes) {
  keys_->Set(static_cast<double>(keys));
  bytes_->Set(static_cast<double>(bytes));
}

void LiveSeriesMetrics::record_evicted(int64_t keys) {
  evicted_->Increment(static_cast<double>(keys));
}

void LiveSeriesMetrics::record_snapshot(bool ok) {
  (ok ? snapshot_ok_ : snapshot_failed_)->Increment();
}

}  // namespace tsserve::server
