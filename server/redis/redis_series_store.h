#pragma once
// The live series in a Redis every replica shares (series_store.h), so that any replica
// takes any key's next points.
//
// One key's window is laid out as window_layout.h says: a hash with its revision and its
// head, and a ring of its points, so an append sends its new points and a small head, not
// the whole window. An append checks and applies the points in this process with the
// very checks of the in-process store (live/series_append.h), starting from the window as
// this replica last saw it, and writes with a compare-and-set script that succeeds only if
// the key's revision is still the one seen. A script that finds the revision moved (the
// key's previous append landed on another replica) answers the key's current window in
// the same round trip; the append is checked again on it and retried. So two replicas
// appending to one key can neither interleave nor reorder its points, and a timestamp
// both send is accepted once and refused (INVALID_ARGUMENT) the second time.
//
// Round trips: an append to a key this replica wrote or read last is one (two when
// another replica wrote it since); a key it has not seen is read first. What it last saw
// of each key is kept for at most `ttl` (the key's own expiry in Redis, renewed by every
// append, so a key seen within it still exists unless deleted by hand) and within
// `max_bytes` in all (past it the memory starts again). binding() answers from it too: a
// key's binding never changes while the key exists.
//
// Thread safety: every member may be called from any thread.

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "server/live/series_store.h"
#include "server/redis/redis_client.h"
#include "server/redis/redis_kept_forecasts.h"
#include "server/sync/mutex.h"

namespace tsserve::server {

class RedisSeriesStore final : public SeriesStore {
 public:
  // `client` outlives the store. `max_bytes` bounds one window as in process, and what
  // this replica remembers of the keys; `compare_and_set` false writes without comparing
  // (only for the test that shows the comparison is what keeps concurrent writers apart).
  // `kept` (may be null; outlives the store): the kept forecasts an append's points are
  // scored against, their score sent with the window's write when the append says they
  // are scored next (SeriesAppend::scored_values).
  RedisSeriesStore(RedisClient& client, std::size_t max_bytes, std::chrono::milliseconds ttl,
                   bool compare_and_set = true, RedisKeptForecasts* kept = nullptr);

  Status binding(const std::string& key, std::optional<SeriesBinding>* binding) override;
  Status append(const SeriesAppend& append, SeriesWindow* window, SeriesDrops* drops) override;
  std::optional<SeriesStoreSize> size() const override { return std::nullopt; }

 private:
  // A key as this replica last saw it.
  struct Seen {
    std::string revision;               // "" = the key is not held
    std::optional<SeriesWindow> window;
    int64_t capacity = 0;               // its ring's, when held
    std::chrono::steady_clock::time_point at;
  };
  using SeenPtr = std::shared_ptr<const Seen>;

  // The key's state from Redis' answer (revision, head, ring) into *seen.
  Status decode(const std::string& key, const RedisReply& answer, SeenPtr* seen) const;
  Status read(const std::string& key, SeenPtr* seen);
  SeenPtr recall(const std::string& key);
  void remember(const std::string& key, SeenPtr seen);
  // What remembering `seen` costs, as the in-process store counts a window.
  static std::size_t bytes_of(const std::string& key, const SeenPtr& seen);

  RedisClient& client_;
  const std::size_t max_bytes_;
  const std::chrono::milliseconds ttl_;
  const bool compare_and_set_;
  RedisKeptForecasts* const kept_;
  Mutex mutex_;
  std::unordered_map<std::string, SeenPtr> seen_ TSSERVE_GUARDED_BY(mutex_);
  std::size_t seen_bytes_ TSSERVE_GUARDED_BY(mutex_) = 0;
};

// The Redis keys of a series key's window: its hash (revision, head) and its ring.
std::string redis_window_key(const std::string& series_key);
std::string redis_window_ring_key(const std::string& series_key);

}  // namespace tsserve::server
