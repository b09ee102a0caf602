#pragma once
// What a batcher worker does with a closed batch: stack the tasks' rows, run the model
// once, split the result back, fill each task's output and complete it.
//
// Forecast batches stack every variable of every request as one row [R, seq_len]; the
// model is channel-independent and row-invariant, so each request's result is bitwise
// the one it would get alone. Encode batches are grouped by token count and each group
// runs as one [b, L, D] forward: padding to a common length would change the GEMM and
// softmax shapes and with them the last bits, so grouping keeps the same guarantee.
//
// A LibTorch exception propagates to the batcher, which completes the batch's tasks
// INTERNAL with its message; the processor logs it first.

#include "server/batching/dynamic_batcher.h"
#include "server/runtime/model_runner.h"

namespace tsserve::server {

// Observes batches for metrics; null means none. Called on the worker thread.
class BatchObserver {
 public:
  virtual ~BatchObserver() = default;
  virtual void on_batch(std::size_t rows, double compute_seconds) = 0;
  virtual void on_queue_wait(double seconds) = 0;
};

DynamicBatcher::Processor forecast_processor(const ModelRunner& runner, BatchObserver* observer);
DynamicBatcher::Processor encode_processor(const ModelRunner& runner, BatchObserver* observer);

}  // namespace tsserve::server
