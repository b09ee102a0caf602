#pragma once
// The forecasts issued with a series key, kept in this process (kept_forecasts.h; the
// default store) so that actuals reported later (ReportActuals) can be scored against them.
//
// Bounded two ways, so memory stays bounded whatever callers send:
//  - entries: at most max_entries forecasts (of all keys together); beyond it the least
//    recently used one goes ("used" = issued, or scored by a report): a key still being
//    reported on keeps its forecasts, an abandoned key loses them first;
//  - age: a forecast issued max_age ago or earlier goes (its actuals are long overdue).
// Each entry holds N * F floats (more with interval bands) plus N * F bytes of "scored"
// marks: at ETTh1's N = 7, F = 96, about 3.4 KB, so the default 10,000 entries are ~34 MB.
//
// A point (timestamp, variable) scores each kept forecast of its key that covers it at
// most once: the entry marks it scored, and a second report of the same point finds the
// mark (ActualsOutcome::already_reported). So replays and retries never double-count.
//
// Thread safety: every member may be called from any thread (one mutex); the scoring
// callback runs under it and must not call back into the store.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "server/accuracy/issued_forecast.h"
#include "server/accuracy/kept_forecasts.h"
#include "server/batching/clock.h"
#include "server/request/actuals_report.h"
#include "server/sync/mutex.h"

namespace tsserve::server {

struct ForecastStoreLimits {
  std::size_t max_entries = 10'000;
  Clock::duration max_age = std::chrono::hours(24 * 7);
};

class ForecastStore final : public KeptForecasts {
 public:

  // `clock` outlives the store. REQUIRES: limits.max_entries >= 1, max_age > 0.
  ForecastStore(ForecastStoreLimits limits, const Clock& clock);

  // Keeps `forecast` as the most recently used entry. REQUIRES: a series key, times
  // increasing, values (and each band's bounds) of N * F floats, scaler vectors N or none.
  StoreDrops add(IssuedForecast forecast);

  // Scores every finite point of `report` against the key's covering forecasts, calling
  // `score` once per (forecast, point) pair not scored before, and says what became of
  // each point. Drops expired entries first (added to *drops). The cost is linear in the
  // report and in the key's kept forecasts (their names and steps), never their product;
  // the report's names and times are indexed before the lock is taken.
  // REQUIRES: report.variable_names unique, report.timestamps distinct.
  ActualsOutcome match(const ActualsReport& report, const ScoreSink& score, StoreDrops* drops);

  std::size_t entries() const;

  // KeptForecasts: add and match, which cannot fail in process.
  Status keep(IssuedForecast forecast, StoreDrops* drops) override;
  Status score(const ActualsReport& report, const ScoreSink& score, StoreDrops* drops,
               ActualsOutcome* outcome) override;
  std::optional<std::size_t> held_entries() const override { return entries(); }

 private:
  struct Entry {
    IssuedForecast forecast;
    Clock::time_point issued;
    uint64_t id = 0;              // issue order
    std::vector<uint8_t> scored;  // [N, F]: 1 once that point was scored
  };
  using EntryList = std::list<Entry>;

  void remove_locked(EntryList::iterator entry) TSSERVE_REQUIRES(mutex_);
  void expire_locked(StoreDrops* drops) TSSERVE_REQUIRES(mutex_);

  const ForecastStoreLimits limits_;
  const Clock& clock_;
  mutable Mutex mutex_;
  EntryList lru_ TSSERVE_GUARDED_BY(mutex_);  // most recently used first
  std::unordered_map<std::string, std::vector<EntryList::iterator>> by_key_
      TSSERVE_GUARDED_BY(mutex_);
  std::map<uint64_t, EntryList::iterator> by_issue_ TSSERVE_GUARDED_BY(mutex_);  // oldest first
  uint64_t next_id_ TSSERVE_GUARDED_BY(mutex_) = 0;
};

}  // namespace tsserve::server
