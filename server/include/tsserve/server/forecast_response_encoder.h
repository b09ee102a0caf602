#pragma once
// A Forecast's result (model space, [N, F] by variable) -> ForecastResponse: unscaled when
// the scaler was applied, laid out as the request's series were, encoded as it asked.

#include <grpcpp/support/status.h>

#include <cstdint>
#include <vector>

#include "tsserve/server/attention_maps.h"
#include "tsserve/server/forecast_request_decoder.h"
#include "tsserve/server/model_shape.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

// What the runner produces for one Forecast request.
struct ForecastOutput {
  // [N, F] row-major by variable (F = pred_len), in the model's space (scaled when the
  // input was).
  std::vector<float> forecast;
  // The maps input.attention selected, in any order.
  std::vector<AttentionBlock> attention;
  double queue_seconds = 0;    // arrival -> start of the batch
  double compute_seconds = 0;  // the batch's model call
  int32_t batch_rows = 0;      // rows in that batch
};

// The forecast in the request's units and layout, written to `dst` (input.variables *
// pred_len little-endian floats, any alignment): each of the input.samples samples in
// turn, [N, F] or [F, N] as input.variables_by_time says, unscaled as float(x * std[c] +
// mean[c]) computed in double when input.scaler_applied.
// REQUIRES: check_forecast_output(input, model, result).ok() for the result holding
// `forecast`.
void store_forecast(const ForecastInput& input, const ModelShape& model,
                    const std::vector<float>& forecast, unsigned char* dst);

// The shape of one sample's forecast: [N, F], or [F, N] when !input.variables_by_time.
std::vector<int64_t> forecast_shape(const ForecastInput& input, const ModelShape& model);

// OK when `result` fits `input` (N * F forecast values, attention maps [H, P, P] or [P, P]
// with P = patch_count); INTERNAL otherwise: a runner bug, not the caller's.
grpc::Status check_forecast_output(const ForecastInput& input, const ModelShape& model,
                                   const ForecastOutput& result);

// Fills *out for the request decoded into `input`: forecast [N, F] (or [F, N] for the
// TIME_BY_VARIABLES layout), unscaled as float(x * std[c] + mean[c]) computed in double
// when input.scaler_applied, in raw_values or values per input.raw_output; model name
// and version, timing, attention maps ordered by variable then layer, request_id,
// input_points_used, scaler_applied. Consumes `result`'s buffers.
// INTERNAL, with *out untouched, when `result` does not fit `input` (N * F forecast
// values, attention maps [H, P, P] or [P, P] with P = patch_count): a runner bug, not the caller's.
grpc::Status encode_forecast_response(const ForecastInput& input, const ModelShape& model,
                                      ForecastOutput&& result, v1::ForecastResponse* out);

}  // namespace tsserve::server
