#pragma once
// The forecasts issued with a series key, kept in a Redis every replica shares
// (accuracy/kept_forecasts.h), so that an actual is scored on whichever replica receives
// it. Laid out (forecast_layout.h) so that keeping a forecast is a few writes whatever its
// horizon, and a report reads only the steps it reports:
//
//   tsserve:fm:<id>           the forecast's meta, times included (string; replicas cache it)
//   tsserve:fb:<id>           its body: every step's entry, then the scored marks (string)
//   tsserve:fw:<widths id>    its bands' widths, shared by every forecast of one model
//                             version and set of columns (string; replicas cache it)
//   tsserve:fi:<series_key>   the key's forecasts, "<seq>-<id>" scored by their last time
//   tsserve:fk:<series_key>   the same members scored by when they were kept (ms)
//   tsserve:fq:<series_key>   the key's keep sequence (seq: the order they were kept)
//   tsserve:fn:<series_key>   the variable names of the key's forecasts (set)
//
// keep() is one script (one round trip, atomic: a report sees a forecast whole or not at
// all, and two replicas' forecasts of one key get distinct, ordered seqs). score() reads
// the key's names and the forecasts that may cover the report (last time >= its first
// time) in one round trip, their metas from its cache (one more for those it has not seen),
// picks the (forecast, point) pairs exactly as the in-process store does, then reads the
// entries of the steps it needs and sets their marks in one script: BITFIELD answers each
// bit it replaced, so of two replicas scoring one point at once exactly one scores it.
// A forecast's meta and body expire `ttl` after it was kept, the key's sets `ttl` after its
// last forecast; a keep drops the key's members older than `ttl` (Redis' own expiry: not
// counted in StoreDrops).
//
// Thread safety: every member may be called from any thread.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "server/accuracy/kept_forecasts.h"
#include "server/redis/forecast_layout.h"
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

  using Widths = std::shared_ptr<const std::vector<double>>;
  struct SeenWidths {
    std::chrono::steady_clock::time_point at;  // last written or read
    Widths widths;                             // null until read back
  };

  // The metas of `ids` into *metas (an id whose meta expired is absent).
  Status metas_of(const std::vector<uint64_t>& ids, std::unordered_map<uint64_t, Meta>* metas);
  void remember(uint64_t id, Meta meta);
  // The widths `metas` name into *widths, by id (widths that expired are absent).
  Status widths_for(const std::vector<const ForecastMeta*>& metas,
                    std::unordered_map<std::string, Widths>* widths);
  // Whether widths `id` were written or read within half their expiry.
  bool widths_held(const std::string& id);
  void remember_widths(const std::string& id, Widths widths);

  RedisClient& client_;
  const std::chrono::milliseconds ttl_;
  Mutex mutex_;
  std::unordered_map<uint64_t, Meta> metas_ TSSERVE_GUARDED_BY(mutex_);
  std::unordered_map<std::string, SeenWidths> widths_ TSSERVE_GUARDED_BY(mutex_);
};

}  // namespace tsserve::server
