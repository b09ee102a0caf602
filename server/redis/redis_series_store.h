#pragma once
// The live series in a Redis every replica shares (series_store.h), so that any replica
// takes any key's next points.
//
// One key's window is one Redis hash, "tsserve:w:<series_key>": its window encoded as a
// one-window series snapshot (live/series_snapshot.h: checksummed, its invariants checked
// when read) and a revision. An append reads both, checks and applies the append in this
// process with the very checks of the in-process store (live/series_append.h), and writes
// the new window with a compare-and-set script that succeeds only if the revision is
// still the one read. A writer that lost the race reads again and checks again: so two
// replicas appending to one key can neither interleave nor reorder its points, and a
// timestamp both send is accepted once and refused (INVALID_ARGUMENT) the second time.
// The hash expires after `ttl` without an append. An Observe reads the key's binding and
// then appends: the append's first attempt uses the window that binding() read (the
// compare-and-set finds out if it moved since), so the common call reads once.
//
// Thread safety: every member may be called from any thread.

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>

#include "server/live/series_store.h"
#include "server/redis/redis_client.h"
#include "server/sync/mutex.h"

namespace tsserve::server {

class RedisSeriesStore final : public SeriesStore {
 public:
  // `client` outlives the store. `max_bytes` bounds one window as in process;
  // `compare_and_set` false writes without comparing (only for the test that shows the
  // comparison is what keeps concurrent writers apart).
  RedisSeriesStore(RedisClient& client, std::size_t max_bytes, std::chrono::milliseconds ttl,
                   bool compare_and_set = true);

  Status binding(const std::string& key, std::optional<SeriesBinding>* binding) override;
  Status append(const SeriesAppend& append, SeriesWindow* window, SeriesDrops* drops) override;
  std::optional<SeriesStoreSize> size() const override { return std::nullopt; }

 private:
  // The key's window into *window (nullopt: not held) and its revision ("" when not held).
  Status read(const std::string& key, std::optional<SeriesWindow>* window, std::string* revision);

  struct Read {
    std::optional<SeriesWindow> window;
    std::string revision;
  };
  // What binding() last read of a key, for its append to start from; taken by it.
  bool take_recent(const std::string& key, Read* read);

  RedisClient& client_;
  const std::size_t max_bytes_;
  const std::chrono::milliseconds ttl_;
  const bool compare_and_set_;
  Mutex mutex_;
  std::unordered_map<std::string, Read> recent_ TSSERVE_GUARDED_BY(mutex_);
};

// The Redis key of a series key's window.
std::string redis_window_key(const std::string& series_key);

}  // namespace tsserve::server
