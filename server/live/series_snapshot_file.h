#pragma once
// The live series' snapshot file, dir/series.snapshot (series_snapshot.h's bytes): written
// atomically so that a crash mid-write leaves the previous snapshot, and read back at
// start, where a bad file is set aside, never fatal: the server starts empty and says why.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "server/live/memory_series_store.h"
#include "server/live/series_window.h"
#include "server/status/status.h"

namespace tsserve::server {

inline constexpr char kSeriesSnapshotFileName[] = "series.snapshot";

// dir/series.snapshot.
std::string series_snapshot_path(const std::string& dir);

// Writes `windows` to dir/series.snapshot: first to series.snapshot.tmp, fsync'd, then
// renamed over the old file and the directory fsync'd, so the file is the old snapshot or
// the new one, never a mix. Creates `dir` (one level) when missing. On error (INTERNAL,
// naming the path, the step and strerror) the old file is left as it was.
//
// The file is mode 0600: it holds every caller's series. The temporary is created anew
// (a stale one unlinked, then O_CREAT | O_EXCL | O_NOFOLLOW), so whatever sits at its
// path (a symlink planted there, a file of another owner) is never written through.
Status write_series_snapshot_file(const std::string& dir, const std::vector<SeriesWindow>& windows);

struct SeriesSnapshotLoad {
  std::vector<SeriesWindow> windows;  // least recently used first, for MemorySeriesStore::restore
  std::string note;       // one line for the start-up log: what was restored, or why not
  bool unusable = false;  // a snapshot was there but could not be read (a warning)
};

// The most bytes load_series_snapshot reads for a store of `limits`. A store at its bounds
// encodes to at most max_bytes + 28 (the header and checksum; each window's encoding is
// smaller than the bytes it is accounted for, series_store.h); twice that, so that a
// restart with --series-store-max-bytes halved still restores (restore() then evicts the
// surplus) while a file far larger than this store could have written is refused before
// anything is read. Saturates rather than overflows.
std::size_t series_snapshot_max_file_bytes(const SeriesStoreLimits& limits);

// The windows of dir/series.snapshot. Never fails: no file gives none ("no snapshot at
// ..."); a file that cannot be read or decoded, is not a regular file, or holds more than
// `max_file_bytes` (series_snapshot_max_file_bytes; checked before it is read, and the
// read stops there) gives none too, and is renamed to series.snapshot.corrupt-<unix_now>
// beside it (kept for a look, and out of the way of the next write), the note saying what
// was wrong (for a large file: its size and the limit) and where the file went.
SeriesSnapshotLoad load_series_snapshot(const std::string& dir, int64_t unix_now,
                                        std::size_t max_file_bytes);

}  // namespace tsserve::server
