#pragma once
// What a batcher worker does with a closed batch: stack the tasks' rows, run the model
// once, split the result back (attention maps cut per task, heads averaged when asked),
// fill each task's output and complete it. Each request's result is bitwise the one it
// would get alone (batch_processors.cpp says why).
//
// A LibTorch exception propagates to the batcher, which completes the batch's tasks
// INTERNAL with its message; the processor logs it first.

#include "server/batching/dynamic_batcher.h"
#include "server/runtime/batch_observer.h"
#include "server/runtime/itransformer_runner.h"
#include "server/runtime/model_runner.h"

namespace tsserve::server {

DynamicBatcher::Processor forecast_processor(const ModelRunner& runner, BatchObserver* observer);
DynamicBatcher::Processor encode_processor(const ModelRunner& runner, BatchObserver* observer);
// Encode on an iTransformer's encoder (tokens are variable embeddings [L, d_model]).
DynamicBatcher::Processor encode_processor(const ITransformerRunner& runner,
                                           BatchObserver* observer);

}  // namespace tsserve::server
