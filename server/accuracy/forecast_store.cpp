#include "server/accuracy/forecast_store.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace tsserve::server {

ForecastStore::ForecastStore(ForecastStoreLimits limits, const Clock& clock)
    : limits_(limits), clock_(clock) {}

Status ForecastStore::keep(IssuedForecast forecast, StoreDrops* drops) {
  // The bounds are kept; their widths would only double what a kept forecast holds.
  std::vector<std::vector<double>>().swap(forecast.band_widths);
  const StoreDrops added = add(std::move(forecast));
  drops->evicted += added.evicted;
  drops->expired += added.expired;
  return Status();
}

Status ForecastStore::score(const ActualsReport& report, const ScoreSink& score,
                            StoreDrops* drops, ActualsOutcome* outcome) {
  *outcome = match(report, score, drops);
  return Status();
}

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

namespace {

// The report's names and times by value, built before the store's lock is taken: under
// it each kept forecast looks its own names and times up here, so the work is the sum of
// the report's size and the key's forecasts' sizes, never their product.
struct ReportIndex {
  std::unordered_map<std::string_view, int64_t> column;  // name -> n
  std::unordered_map<int64_t, std::size_t> row;          // time -> t

  explicit ReportIndex(const ActualsReport& report) {
    column.reserve(report.variable_names.size());
    for (std::size_t n = 0; n < report.variable_names.size(); ++n) {
      column.emplace(report.variable_names[n], static_cast<int64_t>(n));
    }
    row.reserve(report.timestamps.size());
    for (std::size_t t = 0; t < report.timestamps.size(); ++t) {
      row.emplace(report.timestamps[t], t);
    }
  }
};

// A kept forecast's step k that is at report row t.
struct Cover {
  std::size_t t;
  std::size_t f;
  int64_t k;
};

// A report column n that is kept forecast f's variable v.
struct Column {
  int64_t n;
  int64_t v;
};

// One (forecast, point) pair of a report row that may score.
struct Candidate {
  int64_t n;
  std::size_t f;
  int64_t v;
  int64_t k;
};

}  // namespace

ActualsOutcome ForecastStore::match(const ActualsReport& report, const ScoreSink& score,
                                    StoreDrops* drops) {
  ActualsOutcome outcome;
  const auto variables = static_cast<int64_t>(report.variable_names.size());
  const ReportIndex index(report);
  const MutexLock lock(mutex_);
  expire_locked(drops);
  const auto key = by_key_.find(report.series_key);
  if (key == by_key_.end()) {
    outcome.unknown_key = static_cast<int64_t>(report.values.size());
    return outcome;
  }
  const std::vector<EntryList::iterator> forecasts = key->second;
  // From the forecasts' side, each one's names and times looked up once: which report
  // columns each has (a column takes a forecast's first variable of its name), whether
  // any has column n, and which report rows each covers, by row.
  std::vector<std::vector<Column>> columns(forecasts.size());
  std::vector<bool> has_variable(static_cast<std::size_t>(variables), false);
  std::vector<std::size_t> last_forecast(static_cast<std::size_t>(variables), forecasts.size());
  std::vector<Cover> covers;
  for (std::size_t f = 0; f < forecasts.size(); ++f) {
    const IssuedForecast& forecast = forecasts[f]->forecast;
    for (std::size_t v = 0; v < forecast.variable_names.size(); ++v) {
      const auto found = index.column.find(forecast.variable_names[v]);
      if (found == index.column.end()) continue;
      const auto n = static_cast<std::size_t>(found->second);
      if (last_forecast[n] == f) continue;
      last_forecast[n] = f;
      has_variable[n] = true;
      columns[f].push_back({found->second, static_cast<int64_t>(v)});
    }
    if (columns[f].empty()) continue;
    for (std::size_t k = 0; k < forecast.times.size(); ++k) {
      const auto found = index.row.find(forecast.times[k]);
      if (found != index.row.end()) covers.push_back({found->second, f, static_cast<int64_t>(k)});
    }
  }
  // Stable: a row's forecasts stay in the key's order, the order they are scored in.
  std::stable_sort(covers.begin(), covers.end(),
                   [](const Cover& a, const Cover& b) { return a.t < b.t; });
  std::vector<bool> used(forecasts.size(), false);
  std::vector<Candidate> row;  // one report row's pairs, by column
  std::vector<ScoredBand> bands;  // the scored point's, reused
  std::size_t next_cover = 0;
  for (std::size_t t = 0; t < report.timestamps.size(); ++t) {
    row.clear();
    for (; next_cover < covers.size() && covers[next_cover].t == t; ++next_cover) {
      const Cover& cover = covers[next_cover];
      for (const Column& column : columns[cover.f]) {
        row.push_back({column.n, cover.f, column.v, cover.k});
      }
    }
    std::stable_sort(row.begin(), row.end(),
                     [](const Candidate& a, const Candidate& b) { return a.n < b.n; });
    std::size_t next = 0;  // the row's first pair of column n
    for (int64_t n = 0; n < variables; ++n) {
      const std::size_t point =
          t * static_cast<std::size_t>(variables) + static_cast<std::size_t>(n);
      std::size_t end = next;
      while (end < row.size() && row[end].n == n) ++end;
      const double actual = report.values[point];
      if (!std::isfinite(actual)) {
        ++outcome.not_finite;
        next = end;
        continue;
      }
      int64_t scored = 0;
      for (std::size_t c = next; c < end; ++c) {
        const Candidate& pair = row[c];
        Entry& entry = *forecasts[pair.f];
        const auto at = static_cast<std::size_t>(pair.v * entry.forecast.steps() + pair.k);
        if (entry.scored[at] != 0) continue;
        entry.scored[at] = 1;
        used[pair.f] = true;
        ++scored;
        score(scored_point_of(entry.forecast, pair.v, pair.k, actual, point, &bands));
      }
      if (scored > 0) {
        outcome.matched += scored;
      } else if (!has_variable[static_cast<std::size_t>(n)]) {
        ++outcome.unknown_variable;
      } else if (next == end) {
        ++outcome.no_forecast;
      } else {
        ++outcome.already_reported;
      }
      next = end;
    }
  }
  // A forecast that scored is in use: it moves to the front, away from eviction.
  for (std::size_t f = 0; f < forecasts.size(); ++f) {
    if (used[f]) lru_.splice(lru_.begin(), lru_, forecasts[f]);
  }
  return outcome;
}

}  // namespace tsserve::server
