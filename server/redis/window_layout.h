#pragma once
// How the shared store lays a live series window out in Redis (redis_series_store.h), so
// that an append writes its new points only, not the whole window:
//
//   tsserve:w:<key>   hash: "rev", the revision; "head", the window but its values
//   tsserve:wv:<key>  string: a ring of `capacity` points, N float32 each
//
// The key's j-th point ever accepted (0-based) sits in slot j mod capacity, so the
// window's P points, the key's last (j = accepted_total - P .. accepted_total - 1), are
// found from the head alone. capacity is the keep_points of the append that last wrote
// the ring whole (a new key, or an append whose keep_points differs): an append that
// keeps it writes only its new points' slots, at most two ranges (the ring wraps once).
//
// Head, in byte_codec.h's forms: series_key, model, pinned_version (strings), name count
// (u32, 0 or N) and names, then i64 N, step_seconds, last_timestamp, accepted_total,
// points P, capacity. The decoder checks the window's invariants (those SeriesStore
// keeps) and that the ring holds every slot the head names: a corrupt value is an error,
// never a crash or an overread.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "server/live/series_window.h"
#include "server/status/status.h"

namespace tsserve::server {

std::string encode_window_head(const SeriesWindow& window, int64_t capacity);

// The window a head and its ring describe into *window, its ring capacity into *capacity.
Status decode_window(std::string_view head, std::string_view ring, SeriesWindow* window,
                     int64_t* capacity);

// One write into the ring string: `bytes` at byte `offset`.
struct RingWrite {
  std::size_t offset = 0;
  std::string bytes;
};

// The ring writes that bring a ring holding `window`'s points but its newest `fresh` to
// holding all of them: the slots of its last min(fresh, P) points, in one or two ranges.
std::vector<RingWrite> ring_writes_of_newest(const SeriesWindow& window, int64_t capacity,
                                             int64_t fresh);

// The whole ring of `window` at `capacity` (>= its P points): slots it does not use are
// zeros.
std::string whole_ring(const SeriesWindow& window, int64_t capacity);

}  // namespace tsserve::server
