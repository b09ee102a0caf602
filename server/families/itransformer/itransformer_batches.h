#pragma once
// The Forecast batch processor for an iTransformer. Its unit is a sample (N variables that
// attend to each other), so a batch is grouped by N, as Encode groups by token count: each
// group runs as one [S, N, seq_len] forward (with its [S, C, seq_len] calendar rows).
// Padding to a common N would change the attention's softmax and the GEMM shapes, and
// with them the last bits; grouped, a sample's answer is bitwise the one it gets alone
// (the model's batch-invariant path, config.batch_invariant, does the rest).
//
// Errors as every processor (patchtst_batches.h): logged, then the batcher completes the batch
// INTERNAL.

#include "server/batching/dynamic_batcher.h"
#include "tsserve/model/itransformer_forecaster.h"
#include "server/runtime/batch_observer.h"

namespace tsserve::server {

DynamicBatcher::Processor itransformer_forecast_processor(const model::ITransformerForecaster& forecaster,
                                                          BatchObserver* observer);

}  // namespace tsserve::server
