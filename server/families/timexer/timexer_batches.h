#pragma once
// The Forecast batch processor for a TimeXer. Its unit is a sample (the enc_in variables of
// one window, the target last for "MS", with the calendar rows of its input steps), so a
// batch stacks its samples into one [S, N, seq_len] forward; the forecast holds each
// sample's endogenous variables (ModelShape::forecast_variables). A sample's answer is
// bitwise the one it gets alone (fused_timexer_forward.h, unit_passes.h). Its maps, from
// the forecast's own pass, are per endogenous variable: the patches' self-attention
// ("encoder") and the global token's attention over the covariate tokens ("covariates").
//
// Errors as every processor: logged, then the batcher completes the batch INTERNAL.

#include "server/batching/dynamic_batcher.h"
#include "server/runtime/batch_observer.h"
#include "tsserve/model/timexer_forecaster.h"

namespace tsserve::server {

DynamicBatcher::Processor timexer_forecast_processor(const model::TimeXerForecaster& forecaster,
                                                     BatchObserver* observer);

}  // namespace tsserve::server
