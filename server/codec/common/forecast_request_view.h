#pragma once
// A Forecast request as every protocol's decoder finds it (tsserve.v1's message, the JSON
// API's body), and the one function that applies the rules they share: the series'
// geometry and names, timestamps, the scaler, attention, the gather into rows and the
// interval levels. A decoder checks what only its own encoding can get wrong (a message's
// enums and tensor structure, JSON's syntax), views the rest here and passes the names its
// client wrote, so that a refusal names the field as sent: tsserve.v1's interval_levels,
// the JSON API's intervals. The Open Inference Protocol's request carries B samples and
// its decoder calls the same rules one by one (oip_request_decoder.cpp).

#include <cstdint>
#include <string>
#include <vector>

#include "server/codec/common/attention_selection.h"
#include "server/codec/common/name_list.h"
#include "server/codec/common/scaler_matching.h"
#include "server/codec/common/series_geometry.h"
#include "server/codec/common/tensor_codec.h"
#include "server/request/attention_request.h"
#include "server/request/model_shape.h"
#include "server/request/request_types.h"
#include "server/request/scaler_mode.h"
#include "server/status/status.h"

namespace tsserve::server {

// Views of the decoder's request (and of what it converted); valid while they live.
struct ForecastRequestView {
  TensorView series;  // structurally valid: [N, T_in] by variable, else [T_in, N]
  bool by_variable = true;
  NameList variable_names;  // empty or one per variable, as sent (unchecked)
  const int64_t* timestamps = nullptr;
  int64_t timestamp_count = 0;
  const std::string* series_key = nullptr;  // null or empty: none
  ScalerMode scaler_mode = ScalerMode::kAuto;
  const AttentionRequest* attention = nullptr;           // not null
  const std::vector<double>* interval_levels = nullptr;  // not null; empty: none
};

// How the decoder's client names each field: tsserve.v1's by default.
struct ForecastFieldNames {
  SeriesNames series{{"series", 2, "[N, T_in]"}, "layout VARIABLES_BY_TIME", "SCALER_MODE_NONE"};
  const char* variable_names = "variable_names";
  const char* timestamps = "timestamps";
  const char* series_key = "series_key";
  const char* interval_levels = "interval_levels";
  ScalerFields scaler;
  AttentionFields attention;
};

// Every shared rule of a Forecast request for the model described by `model` under
// `limits`; fills *out (all but request_id and raw_output, which are the decoder's).
// INVALID_ARGUMENT naming the field as `fields` says and the expectation, or
// FAILED_PRECONDITION for a required scaler the model lacks (forecast_request_decoder.h
// lists the rules). REQUIRES: model.seq_len >= 1.
Status decode_forecast_view(const ForecastRequestView& request, const ForecastFieldNames& fields,
                            const ModelShape& model, const RequestLimits& limits,
                            ForecastInput* out);

// A Forecast request held in plain buffers rather than a message: the JSON API's body
// (codec/v1_json/forecast_json_request.h) and a live series' window
// (call/window_forecast_request.h).
struct PlainForecastRequest {
  std::vector<std::string> columns;  // the variables' names: none, or N unique ones
  std::vector<float> values;         // [N, T] row-major: each variable's points, oldest first
  int64_t shape[2] = {0, 0};         // N, T
  std::vector<int64_t> timestamps;
  std::vector<double> intervals;
  AttentionRequest attention;
  ScalerMode scaler = ScalerMode::kAuto;
  std::string series_key;
  std::string request_id;
};

// decode_forecast_view of `request`, after its request_id; the answer is typed floats.
// REQUIRES: shape[0] * shape[1] == values.size().
Status decode_plain_forecast_request(const PlainForecastRequest& request,
                                     const ForecastFieldNames& fields, const ModelShape& model,
                                     const RequestLimits& limits, ForecastInput* out);

}  // namespace tsserve::server
