#pragma once
// The entry points of one instruction set's copy of the fused kernels, declared in the
// copy's namespace (TSSERVE_FUSED_NAMESPACE, set per copy by model/fused/CMakeLists.txt).
// The kernel sources define them; fused_kernel_table.cpp lists them in the copy's table.

#include <cstdint>

#include "tsserve/model/fused_itransformer_weights.h"
#include "tsserve/model/fused_row_maps.h"
#include "tsserve/model/fused_timexer_forward.h"
#include "tsserve/model/fused_weights.h"

namespace tsserve::model::TSSERVE_FUSED_NAMESPACE {

// PatchTST (fused_forward_kernels.cpp): the forecast of `rows` series, and Encode.
void forecast_rows(const FusedWeights& w, const float* series, int64_t rows, float* forecast,
                   const FusedRowMaps* maps);
void encode_tokens(const FusedWeights& w, const float* tokens, int64_t sequences, int64_t length,
                   float* output, float* maps);

// The iTransformer (fused_itransformer_kernels.cpp): the forecast, and Encode.
void itransformer_forecast(const FusedITransformerWeights& w, const float* series,
                           const float* calendar, int64_t samples, int64_t variables,
                           float* forecast, const FusedRowMaps* maps);
void itransformer_encode(const FusedITransformerWeights& w, const float* tokens, int64_t sequences,
                         int64_t length, float* output, const FusedRowMaps* maps);

// TimeXer (fused_timexer_kernels.cpp): the forecast.
void timexer_forecast(const FusedTimeXerWeights& w, const float* series, const float* calendar,
                      int64_t samples, float* forecast, const FusedTimeXerMaps* maps);

}  // namespace tsserve::model::TSSERVE_FUSED_NAMESPACE
