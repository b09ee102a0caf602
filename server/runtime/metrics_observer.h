#pragma once
// The BatchObserver of one served version: feeds each batch's figures to the version's
// Prometheus series and keeps its queue-depth gauge at the rows waiting in both its
// batchers. One observer serves both processors, on any worker thread.

#include <cstddef>
#include <memory>

#include "server/batching/dynamic_batcher.h"
#include "server/observability/server_metrics.h"
#include "server/runtime/batch_observer.h"

namespace tsserve::server {

class MetricsObserver final : public BatchObserver {
 public:
  explicit MetricsObserver(std::shared_ptr<ServerMetrics::VersionSeries> series);

  // The batchers exist only after their processors (which hold this observer) were made:
  // called once, before any batch runs.
  void watch(const DynamicBatcher* forecast, const DynamicBatcher* encode);

  void on_batch(std::size_t rows, double compute_seconds) override;
  void on_queue_wait(double seconds) override;

 private:
  const std::shared_ptr<ServerMetrics::VersionSeries> series_;  // removed with the version
  const DynamicBatcher* forecast_ = nullptr;  // both set once, before any batch runs
  const DynamicBatcher* encode_ = nullptr;
};

}  // namespace tsserve::server
