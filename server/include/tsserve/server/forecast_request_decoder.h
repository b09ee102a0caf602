#pragma once
// ForecastRequest -> ForecastInput: every rule the proto states for a Forecast request,
// checked before the request is admitted, and the series turned into the model's input
// rows (the last T points of each variable, scaled when the scaler applies) in one pass.
// The `model` field is the caller's (check_model_name in model_selection.h), as it picks
// the ModelShape passed here.

#include <grpcpp/support/status.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tsserve/server/attention_selection.h"
#include "tsserve/server/model_shape.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

// One validated Forecast request, plain data, independent of the request message.
struct ForecastInput {
  std::string request_id;  // the request's, or a generated one when it was empty
  // Series rows: N for tsserve.v1; B * N for a batch of B samples of N variables each (the
  // Open Inference Protocol), row b * N + n being variable n of sample b.
  int64_t variables = 0;
  int64_t samples = 1;  // B; the forecast comes back as B consecutive blocks
  // [rows, T] row-major (T = seq_len): the last T points of each variable, oldest first, in
  // the model's space (scaled when scaler_applied).
  std::vector<float> rows;
  int32_t input_points_used = 0;  // T
  bool scaler_applied = false;
  std::vector<int32_t> scaler_column;  // when scaler_applied: the column of each row
  // The layout of each sample, so the forecast comes back in it: true for [N, T_in] (and
  // UNSPECIFIED), false for [T_in, N].
  bool variables_by_time = true;
  AttentionSelection attention;
  bool raw_output = false;  // output_encoding: raw_values instead of values
};

// Validates `request` for the model described by `model` under `limits` and fills *out.
// INVALID_ARGUMENT naming the field and the expectation for any broken rule (tensor rules,
// rank, N = 0, N > limits.max_variables, T_in < seq_len, non-finite values (the first in
// row-major order of the series as sent, the ignored earlier points included), names,
// timestamps, enums, attention options, request_id); FAILED_PRECONDITION for
// SCALER_MODE_REQUIRED on a model without a scaler. *out is meaningful only on OK; its
// buffers are reused, so a caller may keep one ForecastInput per thread.
// REQUIRES: model.seq_len >= 1.
grpc::Status decode_forecast_request(const v1::ForecastRequest& request, const ModelShape& model,
                                     const RequestLimits& limits, ForecastInput* out);

}  // namespace tsserve::server
