#pragma once
// The Forecast batch processor for PatchTST: stack the tasks' rows, run the model once,
// split the result back (attention maps cut per task, heads averaged when asked), fill
// each task's output and complete it. Each request's result is bitwise the one it would
// get alone (patchtst_batches.cpp says why).
//
// A LibTorch exception propagates to the batcher, which completes the batch's tasks
// INTERNAL with its message; the processor logs it first.

#include "server/batching/dynamic_batcher.h"
#include "tsserve/model/patchtst_forecaster.h"
#include "server/runtime/batch_observer.h"

namespace tsserve::server {

DynamicBatcher::Processor patchtst_forecast_processor(const model::PatchTSTForecaster& forecaster,
                                                      BatchObserver* observer);

}  // namespace tsserve::server
