#include "server/accuracy/forecast_store.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>

namespace tsserve::server {

ForecastStore::ForecastStore(ForecastStoreLimits limits, const Clock& clock)
    : limits_(limits), clock_(clock) {}

std::size_t ForecastStore::entries() const {
  const MutexLock lock(mutex_);
  return lru_.size();
}

void ForecastStore::remove_locked(EntryList::iterator entry) {
  const auto key = by_key_.find(entry->forecast.series_key);
  std::vector<EntryList::iterator>& of_key = key->second;
  of_key.erase(std::find(of_key.begin(), of_key.end(), entry));
  if (of_key.empty()) by_key_.erase(key);
  by_issue_.erase(entry->id);
  lru_.erase(entry);
}

void ForecastStore::expire_locked(StoreDrops* drops) {
  const Clock::time_point now = clock_.now();
  // Issue order is age order: the clock never goes backwards.
  while (!by_issue_.empty() && now - by_issue_.begin()->second->issued >= limits_.max_age) {
    remove_locked(by_issue_.begin()->second);
    ++drops->expired;
  }
}

StoreDrops ForecastStore::add(IssuedForecast forecast) {
  StoreDrops drops;
  const MutexLock lock(mutex_);
  expire_locked(&drops);
  const std::size_t points = forecast.values.size();
  lru_.push_front(Entry{std::move(forecast), clock_.now(), next_id_++,
                        std::vector<uint8_t>(points, 0)});
  const EntryList::iterator entry = lru_.begin();
  by_key_[entry->forecast.series_key].push_back(entry);
  by_issue_.emplace(entry->id, entry);
  while (lru_.size() > limits_.max_entries) {
    remove_locked(std::prev(lru_.end()));
    ++drops.evicted;
  }
  return drops;
}

ActualsOutcome ForecastStore::match(const ActualsReport& report, const ScoreSink& score,
                                    StoreDrops* drops) {
  ActualsOutcome outcome;
  const auto variables = static_cast<int64_t>(report.variable_names.size());
  const MutexLock lock(mutex_);
  expire_locked(drops);
  const auto key = by_key_.find(report.series_key);
  if (key == by_key_.end()) {
    outcome.unknown_key = static_cast<int64_t>(report.values.size());
    return outcome;
  }
  // Each kept forecast's index of each reported variable (-1: it has none), found once.
  const std::vector<EntryList::iterator> forecasts = key->second;
  std::vector<std::vector<int64_t>> column(forecasts.size());
  for (std::size_t f = 0; f < forecasts.size(); ++f) {
    const std::vector<std::string>& names = forecasts[f]->forecast.variable_names;
    for (const std::string& name : report.variable_names) {
      const auto at = std::find(names.begin(), names.end(), name);
      column[f].push_back(at == names.end() ? -1 : at - names.begin());
    }
  }
  std::vector<bool> used(forecasts.size(), false);
  for (std::size_t t = 0; t < report.timestamps.size(); ++t) {
    const int64_t time = report.timestamps[t];
    for (int64_t n = 0; n < variables; ++n) {
      const std::size_t point =
          t * static_cast<std::size_t>(variables) + static_cast<std::size_t>(n);
      const double actual = report.values[point];
      if (!std::isfinite(actual)) {
        ++outcome.not_finite;
        continue;
      }
      bool has_variable = false, covered = false;
      int64_t scored = 0;
      for (std::size_t f = 0; f < forecasts.size(); ++f) {
        const int64_t v = column[f][static_cast<std::size_t>(n)];
        if (v < 0) continue;
        has_variable = true;
        Entry& entry = *forecasts[f];
        const std::vector<int64_t>& times = entry.forecast.times;
        const auto at = std::lower_bound(times.begin(), times.end(), time);
        if (at == times.end() || *at != time) continue;
        covered = true;
        const int64_t k = at - times.begin();
        const auto index = static_cast<std::size_t>(v * entry.forecast.steps() + k);
        if (entry.scored[index] != 0) continue;
        entry.scored[index] = 1;
        used[f] = true;
        ++scored;
        score(ScoredPoint{entry.forecast, v, k + 1, entry.forecast.values[index],
                          entry.forecast.to_model_space(v, actual), point});
      }
      if (scored > 0) {
        outcome.matched += scored;
      } else if (!has_variable) {
        ++outcome.unknown_variable;
      } else if (!covered) {
        ++outcome.no_forecast;
      } else {
        ++outcome.already_reported;
      }
    }
  }
  // A forecast that scored is in use: it moves to the front, away from eviction.
  for (std::size_t f = 0; f < forecasts.size(); ++f) {
    if (used[f]) lru_.splice(lru_.begin(), lru_, forecasts[f]);
  }
  return outcome;
}

}  // namespace tsserve::server
