#pragma once
// A Forecast's result -> ModelInferResponse (Open Inference Protocol): the outputs the
// request listed, in its order, as oip_model_metadata.h lays them out, in
// raw_output_contents when the request sent raw inputs and in contents.fp32_contents
// otherwise. The forecast is written by the same code as tsserve.v1's
// (store_forecast), so both protocols answer with the same numbers.

#include "inference/grpc_service.pb.h"
#include "server/codec/oip/oip_request_decoder.h"
#include "server/request/model_shape.h"
#include "server/request/request_types.h"
#include "server/status/status.h"

namespace tsserve::server {

// Fills *out: model_name, model_version, id (as the request sent it), parameters
// "batch_rows" (int64: series rows in the batch that computed this request),
// "input_points_used" (int64: T) and "scaler_applied" (bool), and the outputs:
//   "forecast"  FP32 [B, F, N], in the series' units;
//   "attention" FP32 [B, V, L, H, P, P] (H = 1 when heads are averaged), variables and
//               layers in ascending index order.
// and, when parameters["interval_levels"] asked for L levels, after those:
//   "forecast_lower", "forecast_upper"  FP32 [L, B, F, N], the prediction intervals
//               (prediction_intervals.h) in the request's level order, in the series'
//               units; with the response parameter "interval_levels" (string, the levels).
// Consumes `result`'s buffers. INTERNAL, with *out untouched, when `result` does not fit
// `input` (check_forecast_output).
Status encode_model_infer_response(const ForecastInput& input, const OipReply& reply,
                                   const ModelShape& model, ForecastOutput&& result,
                                   inference::ModelInferResponse* out);

}  // namespace tsserve::server
