#include "server/app/live_series.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <ctime>
#include <utility>

#include "server/live/series_snapshot_file.h"

namespace tsserve::server {
namespace {

SeriesStoreLimits limits_of(const LiveSeriesOptions& options) {
  SeriesStoreLimits limits;
  limits.max_keys = static_cast<std::size_t>(options.series_store_max_keys);
  limits.max_bytes = static_cast<std::size_t>(options.series_store_max_bytes);
  return limits;
}

}  // namespace

LiveSeries::LiveSeries(const LiveSeriesOptions& options, prometheus::Registry* registry,
                       std::unique_ptr<SeriesStore> shared)
    : options_(options), shared_(std::move(shared)), memory_(limits_of(options)) {
  if (registry != nullptr) metrics_ = std::make_unique<LiveSeriesMetrics>(*registry);
  if (shared_ || options_.series_store_dir.empty()) return;
  SeriesSnapshotLoad loaded =
      load_series_snapshot(options_.series_store_dir, static_cast<int64_t>(std::time(nullptr)),
                           series_snapshot_max_file_bytes(limits_of(options)));
  SeriesDrops drops;
  memory_.restore(std::move(loaded.windows), &drops);
  if (loaded.unusable) {
    spdlog::warn("series store: {}", loaded.note);
  } else {
    spdlog::info("series store: {}", loaded.note);
  }
  if (drops.evicted > 0) {
    spdlog::warn("series store: {} restored keys dropped by --series-store-max-keys/-bytes",
                 drops.evicted);
  }
  if (metrics_) {
    metrics_->record_evicted(drops.evicted);
    metrics_->set_store(memory_.keys(), memory_.bytes());
  }
  thread_ = std::thread([this] { snapshot_loop(); });
}

LiveSeries::~LiveSeries() { stop(); }

void LiveSeries::stop() {
  {
    const MutexLock lock(mutex_);
    if (stopped_) return;
    stopped_ = true;
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (!shared_ && !options_.series_store_dir.empty()) write_snapshot();
}

void LiveSeries::write_snapshot() {
  const Status written = write_series_snapshot_file(options_.series_store_dir, memory_.snapshot());
  if (metrics_) metrics_->record_snapshot(written.ok());
  if (!written.ok()) spdlog::error("series store: snapshot not written: {}", written.message());
}

void LiveSeries::snapshot_loop() {
  const auto period = std::chrono::duration<double>(options_.series_snapshot_s);
  MutexLock lock(mutex_);
  while (!stopping_) {
    if (wake_.wait_for(lock.native(), period,
                       [this]() TSSERVE_REQUIRES(mutex_) { return stopping_; })) {
      break;
    }
    lock.run_unlocked([this] { write_snapshot(); });
  }
}

}  // namespace tsserve::server
