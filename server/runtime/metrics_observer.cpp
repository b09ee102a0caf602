#include "server/runtime/metrics_observer.h"

#include <cstdint>
#include <utility>

namespace tsserve::server {

MetricsObserver::MetricsObserver(std::shared_ptr<ServerMetrics::VersionSeries> series)
    : series_(std::move(series)) {}

void MetricsObserver::watch(const DynamicBatcher* forecast, const DynamicBatcher* encode) {
  forecast_ = forecast;
  encode_ = encode;
}

void MetricsObserver::on_batch(std::size_t rows, double compute_seconds) {
  series_->record_batch(static_cast<int>(rows), compute_seconds);
  if (forecast_ && encode_) {
    series_->set_queue_depth_rows(
        static_cast<int64_t>(forecast_->queued_rows() + encode_->queued_rows()));
  }
}

void MetricsObserver::on_queue_wait(double seconds) { series_->record_queue_wait(seconds); }

}  // namespace tsserve::server
