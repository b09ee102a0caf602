#pragma once
// The forecasts issued with a series key, kept in a Redis every replica shares
// (accuracy/kept_forecasts.h), so that an actual is scored on whichever replica receives
// it. Laid out so that a report reads only the times it reports (forecast_entries.h):
//
//   tsserve:fm:<id>             the forecast's meta (string)
//   tsserve:fp:<series_key>:<t> every kept forecast's entry at time t, appended in the
//                               order they were kept (string)
//   tsserve:fs:<series_key>:<t> the scored marks at time t (bitmap): the entries at t, in
//                               order, take K bits each
//   tsserve:fn:<series_key>     the variable names of the key's forecasts (set)
//
// keep() is one script (one round trip, atomic: a report sees a forecast whole or not at
// all, and two replicas' forecasts of one key are appended in one order at every time).
// score() reads the report's times in one round trip (meta once per process, cached: meta
// never changes), picks the (forecast, point) pairs exactly as the in-process store does,
// and marks them with one BITFIELD SET per time in a second one: BITFIELD answers each
// bit it replaced, so of two replicas scoring one point at once exactly one scores it.
// A time's keys expire `ttl` after they were made, the names and meta `ttl` after the
// key's last forecast (Redis' own expiry: not counted in StoreDrops); a time's entries are
// all written within a forecast's span of it, far inside any useful ttl.
//
// Thread safety: every member may be called from any thread.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "server/accuracy/kept_forecasts.h"
#include "server/redis/forecast_entries.h"
#include "server/redis/redis_client.h"
#include "server/sync/mutex.h"

namespace tsserve::server {

class RedisKeptForecasts final : public KeptForecasts {
 public:
  // `client` outlives the store.
  RedisKeptForecasts(RedisClient& client, std::chrono::milliseconds ttl);

  Status keep(IssuedForecast forecast, StoreDrops* drops) override;
  Status score(const ActualsReport& report, const ScoreSink& score, StoreDrops* drops,
               ActualsOutcome* outcome) override;
  std::optional<std::size_t> held_entries() const override { return std::nullopt; }

 private:
  using Meta = std::shared_ptr<const ForecastMeta>;

  // The metas of `ids` into *metas (an id whose meta expired is absent).
  Status metas_of(const std::vector<uint64_t>& ids, std::unordered_map<uint64_t, Meta>* metas);
  void remember(uint64_t id, Meta meta);

  RedisClient& client_;
  const std::chrono::milliseconds ttl_;
  Mutex mutex_;
  std::unordered_map<uint64_t, Meta> metas_ TSSERVE_GUARDED_BY(mutex_);
};

}  // namespace tsserve::server
