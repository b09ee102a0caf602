#pragma once
// The forecasts issued with a series key, kept in a Redis every replica shares
// (accuracy/kept_forecasts.h), so that an actual is scored on whichever replica receives
// it. Laid out (forecast_layout.h) so that keeping a forecast is one script whatever its
// horizon, and scoring one is one script whatever the number of forecasts it scores:
//
//   tsserve:f:<id>            the forecast: its meta, times included, then every step's
//                             entry (string, never changed; replicas cache it)
//   tsserve:fw:<widths id>    its bands' widths, shared by every forecast of one model
//                             version and set of columns (string; replicas cache them)
//   tsserve:fi:<series_key>   the key's forecasts, "<seq>-<id>-<kept ms>" scored by their
//                             last time
//   tsserve:fk:<series_key>   the same members scored by when they were kept (ms)
//   tsserve:fq:<series_key>   the key's keep sequence (seq: the order they were kept)
//   tsserve:fn:<series_key>   the variable names of the key's forecasts (set)
//   tsserve:fx:<series_key>:<time>  the marks of the key's point at that time (hash:
//                             column -> the keep sequence of the view that last scored it)
//
// keep() is one script (one round trip, atomic: a report sees a forecast whole or not at
// all, and two replicas' forecasts of one key get distinct, ordered seqs). score() needs
// the key's names and the forecasts that may cover the report (last time >= its first
// time): as this replica last saw them, following its own keeps, or read in one round
// trip. It picks the (forecast, point) pairs exactly as the in-process store does
// (scoring_plan.h; forecasts and widths from its caches, one more round trip for those it
// has not seen), then one script checks that the key was not kept to since the view (else
// it answers the current view, and the pairs are picked again) and raises the reported
// points' marks to the view's sequence, answering the marks it replaced: of two replicas
// scoring one point at once exactly one scores each pair. One mark per reported point,
// however many forecasts cover it. So a report on a key whose last keep was this replica's is one round trip;
// after another replica's, two; and Observe's report rides on its window's write (the
// scoring script pipelined after it, guarded by the write's revision): no round trip of
// its own.
// A forecast expires `ttl` after it was kept (its value by Redis' expiry, its pairs by the
// scoring script's clock check), a time's marks `ttl` after they were last set, the key's
// sets between `ttl` and twice that after its last forecast; every 8th keep of a key drops
// its members older than `ttl` (Redis' own expiry: not counted in StoreDrops). A replica
// caches at most `max_cached` forecasts, the oldest kept going first.
//
// Thread safety: every member may be called from any thread.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "server/accuracy/kept_forecasts.h"
#include "server/redis/forecast_layout.h"
#include "server/redis/redis_client.h"
#include "server/redis/scoring_plan.h"
#include "server/sync/mutex.h"

namespace tsserve::server {

class RedisKeptForecasts final : public KeptForecasts {
 public:
  // `client` outlives the store.
  RedisKeptForecasts(RedisClient& client, std::chrono::milliseconds ttl,
                     std::size_t max_cached = 10'000);

  Status keep(IssuedForecast forecast, StoreDrops* drops) override;
  // The keeps this thread begins before it waits on one go in one round trip (pipelined).
  std::unique_ptr<PendingKeep> begin_keep(IssuedForecast forecast) override;
  Status score(const ActualsReport& report, const ScoreSink& score, StoreDrops* drops,
               ActualsOutcome* outcome) override;
  std::optional<std::size_t> held_entries() const override { return std::nullopt; }

 private:
  using Meta = std::shared_ptr<const ForecastMeta>;
  // A forecast as kept: its meta and its body (forecast_layout.h).
  struct HeldForecast {
    ForecastMeta meta;
    std::string body;
  };
  using Held = std::shared_ptr<const HeldForecast>;
  using Widths = std::shared_ptr<const std::vector<double>>;
  // What this replica knows of a key's kept forecasts: its names and the forecasts whose
  // last time is at from_time or after, as of keep sequence `seq`. A report checks it in
  // its scoring script (a keep elsewhere since: the script answers the current view).
  struct KeyView {
    uint64_t seq = 0;
    int64_t from_time = 0;
    std::vector<std::string> names;
    std::vector<KeptMember> members;  // keep order
    std::chrono::steady_clock::time_point at;
  };

 public:
  // A report's pairs, ready for the scoring script.
  struct Prepared {
    int64_t from_time = 0;  // the report's first time
    std::string from;       // as the script takes it
    KeyView view;
    bool checked = false;  // the view was read now: the script need not check it
    std::unordered_map<uint64_t, Held> forecasts;
    std::unordered_map<uint64_t, Meta> metas;
    std::unordered_map<std::string, Widths> widths;
    ScoringPlan plan;
  };
  // A score sent with another write (the key's window: redis_series_store.h), so that
  // Observe's write and its score are one round trip.
  struct Ride {
    ActualsReport report;
    Prepared prepared;
  };
  // The scoring script of `report` into *command, guarded: it marks only if the hash
  // `guard_key`'s field rev then holds `guard_revision` (the write it rides on landed, and
  // nothing was written after it). False when the score needs a round trip of its own
  // first (a view or a forecast this replica has not seen): score() then runs as usual.
  bool prepare_ride(ActualsReport report, const std::string& guard_key,
                    const std::string& guard_revision, RedisCommand* command, Ride* ride);
  // The script's answer to a ride. When it marked, the next score() of the same report on
  // this thread delivers from it, with no round trip; otherwise score() runs as usual.
  void finish_ride(Ride ride, const RedisReply& answer);

 private:

  // One keep, encoded, ready for the keep script.
  struct KeepCall {
    IssuedForecast forecast;
    uint64_t id = 0;
    std::string bytes;  // forecast_layout.h
    std::string widths, widths_id;
    Held held;
  };
  class KeepGroup;
  class PendingRedisKeep;

  KeepCall keep_call(IssuedForecast forecast) const;
  // Whether the call's widths must be sent: not known to be held in Redis.
  bool widths_unheld(const KeepCall& call);
  RedisCommand keep_command(const KeepCall& call, bool send_widths) const;
  // The keep script's answer `kept` to `call`, remembered; false when it kept nothing
  // (the widths were not held).
  bool landed(const KeepCall& call, const RedisReply& kept);
  // One keep, in its own round trip (a second when the widths must be sent after all).
  Status send_keep(const KeepCall& call, bool send_widths);
  // Keeps, pipelined in one round trip; each one's status.
  std::vector<Status> send_keeps(const std::vector<KeepCall>& calls);

  struct SeenWidths {
    std::chrono::steady_clock::time_point at;  // last written or read
    Widths widths;                             // null until read back
  };

  // The forecasts `ids` into *forecasts (an id whose forecast expired is absent).
  Status forecasts_of(const std::vector<uint64_t>& ids,
                      std::unordered_map<uint64_t, Held>* forecasts);
  void remember(uint64_t id, Held forecast);
  // The forecasts `ids` (widths `metas` name) from the caches alone; false when one is not.
  bool cached_forecasts(const std::vector<uint64_t>& ids,
                        std::unordered_map<uint64_t, Held>* forecasts);
  bool cached_widths(const std::vector<const ForecastMeta*>& metas,
                     std::unordered_map<std::string, Widths>* widths);
  // The report's view and pairs into *p; reading what the caches lack when `may_read`,
  // else *complete false when they lack anything.
  Status prepare(const ActualsReport& report, bool may_read, Prepared* p, bool* complete);
  // The pairs of p->view's forecasts.
  Status plan(const ActualsReport& report, bool may_read, Prepared* p, bool* complete);
  Status score_command(const ActualsReport& report, const Prepared& p, bool check_view,
                       const std::string& guard_key, const std::string& guard_revision,
                       RedisCommand* command) const;
  // The scores of p's pairs (the script's answer in *parts, or already read into p).
  void deliver(const ActualsReport& report, Prepared* p, const std::vector<RedisReply>* parts,
               const ScoreSink& score, ActualsOutcome* outcome);
  // The ride this thread's last write marked for `report`, if any.
  std::optional<Prepared> take_ride(const ActualsReport& report);
  // The widths `metas` name into *widths, by id (widths that expired are absent).
  Status widths_for(const std::vector<const ForecastMeta*>& metas,
                    std::unordered_map<std::string, Widths>* widths);
  // Whether widths `id` were written or read within half their expiry.
  bool widths_held(const std::string& id);
  void remember_widths(const std::string& id, Widths widths);
  // The key's view into *view when this replica holds one covering from_time.
  bool recall_view(const std::string& key, int64_t from_time, KeyView* view);
  void remember_view(const std::string& key, KeyView view);
  // A keep this replica made: the key's view follows it when it saw every keep before.
  void saw_kept(const IssuedForecast& forecast, KeptMember member);
  Status view_of(const RedisReply& seq, const RedisReply& names, const RedisReply& members,
                 int64_t from_time, KeyView* view) const;
  // The scoring script's old marks into the plan's pairs, and the entries of the forecasts
  // it found live into its groups.
  void read_marks(const std::vector<RedisReply>& parts,
                  const std::unordered_map<uint64_t, Held>& forecasts,
                  const std::unordered_map<std::string, Widths>& widths, ScoringPlan* plan) const;

  RedisClient& client_;
  const std::chrono::milliseconds ttl_;
  const std::size_t max_cached_;
  Mutex mutex_;
  std::unordered_map<uint64_t, Held> held_ TSSERVE_GUARDED_BY(mutex_);
  std::deque<uint64_t> held_order_ TSSERVE_GUARDED_BY(mutex_);  // oldest kept first
  std::unordered_map<std::string, SeenWidths> widths_ TSSERVE_GUARDED_BY(mutex_);
  std::unordered_map<std::string, KeyView> views_ TSSERVE_GUARDED_BY(mutex_);
};

}  // namespace tsserve::server
