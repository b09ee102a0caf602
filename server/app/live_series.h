#pragma once
// The server's live series: the store of windows Observe appends to and its metrics.
// With a shared store (--series-store redis://...) that store is the windows' one copy,
// durable as the store is configured. Otherwise the windows are in this process
// (memory_series_store.h), and so is their durability: read from --series-store-dir at
// start, written there every --series-snapshot-s by a thread of its own and once more on
// drain.
//
// What a crash can lose in process: the points acknowledged since the last snapshot
// began (at most --series-snapshot-s of them). A snapshot is written whole to a temporary file, synced
// and renamed over the last one (live/series_snapshot_file.h), so a crash while writing
// leaves the previous snapshot. The forecasts kept for scoring are not in it: after a
// restart a key's next points are unscored until its next forecast.
//
// Thread safety: every member may be called from any thread.

#include <prometheus/registry.h>

#include <condition_variable>
#include <memory>
#include <thread>

#include "server/config/server_options.h"
#include "server/live/live_series_metrics.h"
#include "server/live/memory_series_store.h"
#include "server/live/series_store.h"
#include "server/sync/mutex.h"

namespace tsserve::server {

class LiveSeries {
 public:
  // With `shared` (a shared store) the windows are there, and nothing else is done.
  // Otherwise restores the snapshot in options.series_store_dir, if any (a corrupt one is
  // set aside with a warning: the server starts empty, never refuses to start), and
  // starts the snapshot thread when there is a folder. `registry` may be null (metrics off).
  LiveSeries(const LiveSeriesOptions& options, prometheus::Registry* registry,
             std::unique_ptr<SeriesStore> shared);
  ~LiveSeries();
  LiveSeries(const LiveSeries&) = delete;
  LiveSeries& operator=(const LiveSeries&) = delete;

  SeriesStore* store() { return shared_ ? shared_.get() : &memory_; }
  LiveSeriesMetrics* metrics() { return metrics_.get(); }

  // Stops the snapshot thread and writes the last snapshot (drain). Later calls do nothing.
  void stop();

 private:
  void write_snapshot();
  void snapshot_loop();

  const LiveSeriesOptions options_;
  const std::unique_ptr<SeriesStore> shared_;
  MemorySeriesStore memory_;  // empty and unused with a shared store
  std::unique_ptr<LiveSeriesMetrics> metrics_;
  Mutex mutex_;  // with wake_: the thread's stop flag
  std::condition_variable wake_;
  bool stopping_ TSSERVE_GUARDED_BY(mutex_) = false;
  bool stopped_ TSSERVE_GUARDED_BY(mutex_) = false;
  std::thread thread_;
};

}  // namespace tsserve::server
