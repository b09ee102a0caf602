#pragma once
// The live series: per series key, the newest points its callers sent (series_window.h),
// so that a caller sends only its new points and the server forecasts from the key's
// window. Held in this process (memory_series_store.h, the default, with its snapshots)
// or in a store every replica shares (server/redis/redis_series_store.h), so that any
// replica can take any key's next points.
//
// An append is all or nothing and atomic per key: it is checked whole against the key's
// state (series_append.h: the same checks and messages in every store), and a refused one
// leaves the store as it was; two appends to one key, from two threads or two replicas,
// never interleave: one sees the other's points.
//
// Thread safety: every member may be called from any thread.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "server/live/series_append.h"
#include "server/live/series_window.h"
#include "server/status/status.h"

namespace tsserve::server {

// Keys a store removed during one call.
struct SeriesDrops {
  int64_t evicted = 0;  // least recently appended, beyond max_keys or max_bytes
};

// What a store holds, when it counts it (the in-process one does).
struct SeriesStoreSize {
  std::size_t keys = 0;
  std::size_t bytes = 0;  // series_window_bytes summed over the keys
};

class SeriesStore {
 public:
  virtual ~SeriesStore() = default;

  // The key's binding into *binding (nullopt when the key is not held), to resolve its
  // model and version before an append. Not a use. UNAVAILABLE when a shared store cannot
  // be reached.
  virtual Status binding(const std::string& key, std::optional<SeriesBinding>* binding) = 0;

  // Checks `append` against the key's state and appends all its T points, or none: on any
  // error the store is unchanged. On success the key's window holds its newest
  // keep_points points, *window (if not null) receives a copy of it, and keys evicted to
  // stay within the limits are counted in *drops (if not null). UNAVAILABLE when a shared
  // store cannot be reached: then nothing was appended.
  virtual Status append(const SeriesAppend& append, SeriesWindow* window, SeriesDrops* drops) = 0;

  virtual std::optional<SeriesStoreSize> size() const = 0;
};

}  // namespace tsserve::server
