#pragma once
// What a batch processor tells the metrics about each batch (metrics_observer.h feeds the
// version's series); null means nobody listens. Called on the batcher's
// worker thread.

#include <cstddef>

namespace tsserve::server {

class BatchObserver {
 public:
  virtual ~BatchObserver() = default;
  virtual void on_batch(std::size_t rows, double compute_seconds) = 0;
  virtual void on_queue_wait(double seconds) = 0;
};

}  // namespace tsserve::server
