#pragma once
// What a batcher worker does with a closed batch: stack the tasks' rows, run the model
// once, split the result back (attention maps cut per task, heads averaged when asked),
// fill each task's output and complete it. Each request's result is bitwise the one it
// would get alone (batch_processors.cpp says why).
//
// A LibTorch exception propagates to the batcher, which completes the batch's tasks
// INTERNAL with its message; the processor logs it first.

#include "server/batching/dynamic_batcher.h"
#include "server/runtime/itransformer_runner.h"
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
// Encode on an iTransformer's encoder (tokens are variable embeddings [L, d_model]).
DynamicBatcher::Processor encode_processor(const ITransformerRunner& runner,
                                           BatchObserver* observer);

}  // namespace tsserve::server
