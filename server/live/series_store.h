#pragma once
// The live series: per series key, the newest points its callers sent (series_window.h),
// so that a caller sends only its new points and the server forecasts from the key's
// window.
//
// An append is all or nothing: it is checked whole against the key's state first, and a
// refused one leaves the store as it was. What is refused (INVALID_ARGUMENT, the message
// naming the field, the expectation and the offending value):
//  - a key that disagrees with what its first call bound it to: another model, another
//    pinned version, other variable names or another N;
//  - values that are not T * N, or not finite: the store holds no missing values;
//  - a timestamp that repeats or precedes one already held, or is off the series' regular
//    step. A step is learnt from the first two points a key ever sees; afterwards a point
//    a whole multiple of the step late is a GAP (the caller must send the missing points)
//    and one that is off the grid is IRREGULAR. Refusing both keeps every window a regular
//    grid, as the models were trained on, with nothing imputed.
// A window that alone would exceed max_bytes is RESOURCE_EXHAUSTED.
//
// Bounds, so that memory stays bounded whatever callers send: at most max_keys keys and
// max_bytes bytes (series_window_bytes below, summed over the keys). After an append the
// least recently APPENDED other keys are evicted until both hold; the key just appended is
// never evicted by its own call. A window holds at most the keep_points of its latest
// append (the model's seq_len): older points fall off the front.
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

#include "server/live/series_window.h"
#include "server/status/status.h"
#include "server/sync/mutex.h"

namespace tsserve::server {

struct SeriesStoreLimits {
  std::size_t max_keys = 100'000;  // >= 1
  std::size_t max_bytes = 1ull << 30;
};

struct SeriesAppend {
  std::string series_key;
  SeriesBinding binding;            // for a new key; for a known key it must agree
  std::vector<int64_t> timestamps;  // T >= 1, Unix seconds
  std::vector<float> values;        // [T, N] row-major
  int64_t keep_points = 0;          // the window's capacity for this call (seq_len), >= 1
};

// Keys the store removed during one call.
struct SeriesDrops {
  int64_t evicted = 0;  // least recently appended, beyond max_keys or max_bytes
};

// The bytes one key is accounted for:
//   kSeriesEntryOverheadBytes
//   + 2 * series_key.size()                   (the window's copy and the index's)
//   + model.size() + pinned_version.size()
//   + sum over names of (sizeof(std::string) + name.size())
//   + values.capacity() * sizeof(float)
// Strings count their size even when short enough to sit inside the object: a slight
// overcount, never an undercount of the heap.
std::size_t series_window_bytes(const SeriesWindow& window);

// The fixed part of a key: the SeriesWindow object itself (176 bytes with libstdc++ on
// 64-bit: 3 strings, 2 vectors, 4 integers), its list node's two links (16), the index's
// hash node (its std::string key 32, the list iterator 8, next link 8, cached hash 8) and
// the bucket slot (8): 256. series_store.cpp checks that these structures fit in it.
inline constexpr std::size_t kSeriesEntryOverheadBytes = 256;

class SeriesStore {
 public:
  explicit SeriesStore(SeriesStoreLimits limits);

  // The key's binding, if the key is held (to resolve its model and version before an
  // append). Does not count as a use.
  std::optional<SeriesBinding> binding(const std::string& key) const;

  // Checks `append` against the key's state and appends all its T points, or none: on any
  // error the store is unchanged. On success the key is the most recently used, its
  // window holds its newest keep_points points, *window (if not null) receives a copy of
  // it, and keys evicted to stay within the limits are counted in *drops (if not null).
  Status append(const SeriesAppend& append, SeriesWindow* window, SeriesDrops* drops);

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

  Status check_locked(const SeriesAppend& append, const SeriesWindow* held,
                      int64_t* step_seconds) const TSSERVE_REQUIRES(mutex_);
  void remove_locked(WindowList::iterator window) TSSERVE_REQUIRES(mutex_);
  bool over_limits_locked() const TSSERVE_REQUIRES(mutex_);

  const SeriesStoreLimits limits_;
  mutable Mutex mutex_;
  WindowList lru_ TSSERVE_GUARDED_BY(mutex_);  // most recently appended first
  std::unordered_map<std::string, WindowList::iterator> by_key_ TSSERVE_GUARDED_BY(mutex_);
  std::size_t bytes_ TSSERVE_GUARDED_BY(mutex_) = 0;  // series_window_bytes over lru_
};

}  // namespace tsserve::server
