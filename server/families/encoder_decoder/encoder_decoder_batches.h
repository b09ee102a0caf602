#pragma once
// The Forecast batch processor for an Informer or Transformer. Its unit is a sample (the N
// variables of one window, with the time marks of its input and forecast steps), so a
// batch stacks its samples into one [S, N, seq_len] forward with their [S, T + F, C] marks;
// the model's batch-invariant path (each sample a pass of its own on the CPU) keeps a
// sample's answer bitwise the one it gets alone.
//
// Errors as every processor: logged, then the batcher completes the batch INTERNAL.

#include "server/batching/dynamic_batcher.h"
#include "tsserve/model/encoder_decoder_forecaster.h"
#include "server/runtime/batch_observer.h"

namespace tsserve::server {

DynamicBatcher::Processor encoder_decoder_forecast_processor(const model::EncoderDecoderForecaster& forecaster,
                                                             BatchObserver* observer);

}  // namespace tsserve::server
