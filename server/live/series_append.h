#pragma once
// One append to a live series, checked and applied alike by every series store (the
// in-process one, memory_series_store.h, and the shared one, server/redis/), so a caller
// gets the same answer, error message included, whichever store holds its key.
//
// What is refused (INVALID_ARGUMENT, the message naming the field, the expectation and
// the offending value):
//  - a key that disagrees with what its first call bound it to: another model, another
//    pinned version, other variable names or another N;
//  - values that are not T * N, or not finite: a store holds no missing values;
//  - a timestamp that repeats or precedes one already held, or is off the series' regular
//    step. A step is learnt from the first two points a key ever sees; afterwards a point
//    a whole multiple of the step late is a GAP (the caller must send the missing points)
//    and one that is off the grid is IRREGULAR. Refusing both keeps every window a regular
//    grid, as the models were trained on, with nothing imputed.
// A window that alone would exceed the store's max_bytes is RESOURCE_EXHAUSTED.
// A window holds at most the keep_points of its latest append (the model's seq_len):
// older points fall off the front.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "server/live/series_window.h"
#include "server/status/status.h"

namespace tsserve::server {

struct SeriesAppend {
  std::string series_key;
  SeriesBinding binding;            // for a new key; for a known key it must agree
  std::vector<int64_t> timestamps;  // T >= 1, Unix seconds
  std::vector<float> values;        // [T, N] row-major
  int64_t keep_points = 0;          // the window's capacity for this call (seq_len), >= 1
  // When the caller scores exactly the appended points next (Observe: accuracy's report of
  // them, named as the window's variables), their values as reported (before the window's
  // float32), so that a shared store may send that score with its write
  // (redis/redis_series_store.h); null otherwise.
  const std::vector<double>* scored_values = nullptr;
  // How the caller's protocol names the variables' names, for the refusals that name them.
  const char* variable_names_field = "variable_names";
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
// the bucket slot (8): 256. memory_series_store.cpp checks that these structures fit in it.
inline constexpr std::size_t kSeriesEntryOverheadBytes = 256;

// Checks `append` against the key's window `held` (null: a new key). On success
// *step_seconds receives the key's step after it (0 while still unknown).
Status check_series_append(const SeriesAppend& append, const SeriesWindow* held,
                           int64_t* step_seconds);

// What a checked append leaves in the window.
struct SeriesAppendPlan {
  Status status;  // RESOURCE_EXHAUSTED when the window alone would exceed max_bytes
  std::size_t held_points = 0;  // points held before
  std::size_t old_kept = 0;     // of those, kept
  std::size_t new_kept = 0;     // of the appended, kept
  // The window's float capacity after it. Growing doubles, for amortised O(1) per point
  // while a window fills, but never past keep_points * N: so a full window takes each new
  // point without reallocating (the old points move down by an erase from the front
  // instead, O(window)). A window whose keep_points shrank gives the surplus back.
  std::size_t capacity = 0;
};
SeriesAppendPlan plan_series_append(const SeriesAppend& append, const SeriesWindow* held,
                                    std::size_t max_bytes);

// Applies a checked and planned append to `window`: the key's held window, or for a new
// key one that carries only its series_key and binding. Cannot fail.
void apply_series_append(const SeriesAppend& append, const SeriesAppendPlan& plan,
                         int64_t step_seconds, SeriesWindow* window);

}  // namespace tsserve::server
