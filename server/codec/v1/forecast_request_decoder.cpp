#include "server/codec/v1/forecast_request_decoder.h"

#include <string>

#include "server/codec/common/forecast_timestamps.h"
#include "server/codec/common/prediction_intervals.h"
#include "server/codec/common/request_id.h"
#include "server/codec/common/sample_request.h"
#include "server/codec/common/scaler_matching.h"
#include "server/codec/common/series_rows.h"
#include "server/codec/v1/attention_options.h"
#include "server/codec/v1/scaler_mode_message.h"
#include "server/codec/v1/tensor_message.h"

namespace tsserve::server {
Status decode_forecast_request(const v1::ForecastRequest& request, const ModelShape& model,
                               const RequestLimits& limits, ForecastInput* out) {
  TSSERVE_RETURN_IF_ERROR(resolve_request_id(request.request_id(), &out->request_id));
  if (!v1::SeriesLayout_IsValid(request.layout())) {
    return invalid_argument("layout: unknown value " + std::to_string(request.layout()) +
                            "; expected SERIES_LAYOUT_VARIABLES_BY_TIME (1) or "
                            "SERIES_LAYOUT_TIME_BY_VARIABLES (2)");
  }
  TSSERVE_RETURN_IF_ERROR(resolve_output_encoding(request.output_encoding(), &out->raw_output));

  const bool by_variable = request.layout() != v1::SERIES_LAYOUT_TIME_BY_VARIABLES;
  const TensorSpec spec{"series", 2, by_variable ? "[N, T_in]" : "[T_in, N]"};
  TensorView series;
  TSSERVE_RETURN_IF_ERROR(view_tensor(request.series(), spec, &series));
  SeriesGeometry g;
  g.by_variable = by_variable;
  g.variables = series.dim(by_variable ? 0 : 1);
  g.points = series.dim(by_variable ? 1 : 0);
  g.used = model.seq_len;
  const SeriesNames names{spec,
                          by_variable ? "layout VARIABLES_BY_TIME" : "layout TIME_BY_VARIABLES",
                          "SCALER_MODE_NONE"};
  TSSERVE_RETURN_IF_ERROR(check_series_geometry(g, names, limits));
  TSSERVE_RETURN_IF_ERROR(check_variable_names(request.variable_names(), g.variables));
  TSSERVE_RETURN_IF_ERROR(check_sample_variables(g, names, model));
  const int64_t* timestamps = request.timestamps().data();
  const int64_t timestamp_count = request.timestamps_size();
  TSSERVE_RETURN_IF_ERROR(check_timestamps(timestamps, timestamp_count, g, "timestamps"));
  if (!request.series_key().empty()) {
    TSSERVE_RETURN_IF_ERROR(
        resolve_request_id(request.series_key(), &out->series_key, "series_key"));
  }
  ForecastTimestamps forecast_times =
      continue_timestamps(timestamps, timestamp_count, model.pred_len);
  out->forecast_timestamps = std::move(forecast_times.times);
  out->forecast_timestamps_note = std::move(forecast_times.note);
  ScalerMatch scaler;
  TSSERVE_RETURN_IF_ERROR(
      match_scaler(request.scaler_mode(), request.variable_names(), g.variables, model, &scaler));
  TSSERVE_RETURN_IF_ERROR(
      gather_time_inputs(timestamps, timestamp_count, g, model, "timestamps", out));
  if (model.maps_per_sample()) {
    TSSERVE_RETURN_IF_ERROR(resolve_sample_attention(attention_request_of(request.attention()), g,
                                                     model, request.variable_names(), out));
  } else {
    TSSERVE_RETURN_IF_ERROR(check_decoder_maps(attention_request_of(request.attention()), model));
    TSSERVE_RETURN_IF_ERROR(resolve_forecast_attention(request.attention(), model.e_layers,
                                                       g.variables, &out->attention));
  }
  TSSERVE_RETURN_IF_ERROR(
      gather_series(series, g, names, request.variable_names(), model, std::move(scaler), out));
  return resolve_interval_levels(
      {request.interval_levels().begin(), request.interval_levels().end()}, *out, model,
      "interval_levels", &out->interval_levels);
}

}  // namespace tsserve::server
