#pragma once
// The live series held in this process (series_store.h): the default store, written to
// disk by its owner's snapshots (app/live_series.h; live/series_snapshot.h).
//
// Bounds, so that memory stays bounded whatever callers send: at most max_keys keys and
// max_bytes bytes (series_window_bytes, summed over the keys). After an append the
// least recently APPENDED other keys are evicted until both hold; the key just appended is
// never evicted by its own call.
//
// Thread safety: every member may be called from any thread (one mutex; an append holds it
// for O(window) work: its checks, the front trim and the copy handed back).

#include <cstddef>
#include <cstdint>
#include <list>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "server/live/series_store.h"
#include "server/live/series_window.h"
#include "server/status/status.h"
#include "server/sync/mutex.h"

namespace tsserve::server {

struct SeriesStoreLimits {
  std::size_t max_keys = 100'000;  // >= 1
  std::size_t max_bytes = 1ull << 30;
};

class MemorySeriesStore final : public SeriesStore {
 public:
  explicit MemorySeriesStore(SeriesStoreLimits limits);

  // SeriesStore; never UNAVAILABLE. An append makes its key the most recently used.
  Status binding(const std::string& key, std::optional<SeriesBinding>* binding) override;
  Status append(const SeriesAppend& append, SeriesWindow* window, SeriesDrops* drops) override;
  std::optional<SeriesStoreSize> size() const override { return SeriesStoreSize{keys(), bytes()}; }

  // The key's binding, if the key is held. Does not count as a use.
  std::optional<SeriesBinding> binding(const std::string& key) const;

  // Every key, least recently used first (the snapshot file's order, so that restore keeps
  // the LRU order).
  std::vector<SeriesWindow> snapshot() const;

  // Replaces the content with `windows`, taken as least recently used first (a later
  // window of a key replaces an earlier one), then evicts from the least recently used end
  // until the limits hold, counted in *drops (if not null). For the start, with a
  // snapshot's windows (decode_series_snapshot checks their invariants; this does not).
  void restore(std::vector<SeriesWindow> windows, SeriesDrops* drops);

  std::size_t keys() const;
  std::size_t bytes() const;

 private:
  using WindowList = std::list<SeriesWindow>;

  void remove_locked(WindowList::iterator window) TSSERVE_REQUIRES(mutex_);
  bool over_limits_locked() const TSSERVE_REQUIRES(mutex_);

  const SeriesStoreLimits limits_;
  mutable Mutex mutex_;
  WindowList lru_ TSSERVE_GUARDED_BY(mutex_);  // most recently appended first
  std::unordered_map<std::string, WindowList::iterator> by_key_ TSSERVE_GUARDED_BY(mutex_);
  std::size_t bytes_ TSSERVE_GUARDED_BY(mutex_) = 0;  // series_window_bytes over lru_
};

}  // namespace tsserve::server
