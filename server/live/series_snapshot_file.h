#pragma once
// The live series' snapshot file, dir/series.snapshot (series_snapshot.h's bytes): written
// atomically so that a crash mid-write leaves the previous snapshot, and read back at
// start, where a bad file is set aside, never fatal: the server starts empty and says why.

#include <cstdint>
#include <string>
#include <vector>

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
Status write_series_snapshot_file(const std::string& dir, const std::vector<SeriesWindow>& windows);

struct SeriesSnapshotLoad {
  std::vector<SeriesWindow> windows;  // least recently used first, for SeriesStore::restore
  std::string note;       // one line for the start-up log: what was restored, or why not
  bool unusable = false;  // a snapshot was there but could not be read (a warning)
};

// The windows of dir/series.snapshot. Never fails: no file gives none ("no snapshot at
// ..."); a file that cannot be read or decoded gives none too, and is renamed to
// series.snapshot.corrupt-<unix_now> beside it (kept for a look, and out of the way of the
// next write), the note saying what was wrong and where the file went.
SeriesSnapshotLoad load_series_snapshot(const std::string& dir, int64_t unix_now);

}  // namespace tsserve::server
