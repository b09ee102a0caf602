#include "server/codec/common/forecast_request_view.h"

#include <utility>

#include "server/codec/common/forecast_timestamps.h"
#include "server/codec/common/prediction_intervals.h"
#include "server/codec/common/request_id.h"
#include "server/codec/common/sample_request.h"
#include "server/codec/common/series_rows.h"

namespace tsserve::server {

Status decode_forecast_view(const ForecastRequestView& request, const ForecastFieldNames& fields,
                            const ModelShape& model, const RequestLimits& limits,
                            ForecastInput* out) {
  const TensorView& series = request.series;
  SeriesGeometry g;
  g.by_variable = request.by_variable;
  g.variables = series.dim(request.by_variable ? 0 : 1);
  g.points = series.dim(request.by_variable ? 1 : 0);
  g.used = model.seq_len;
  TSSERVE_RETURN_IF_ERROR(check_series_geometry(g, fields.series, limits));
  TSSERVE_RETURN_IF_ERROR(
      check_variable_names(request.variable_names, g.variables, fields.variable_names));
  TSSERVE_RETURN_IF_ERROR(check_sample_variables(g, fields.series, model));
  TSSERVE_RETURN_IF_ERROR(
      check_timestamps(request.timestamps, request.timestamp_count, g, fields.timestamps));
  out->series_key.clear();
  if (request.series_key != nullptr && !request.series_key->empty()) {
    TSSERVE_RETURN_IF_ERROR(
        resolve_request_id(*request.series_key, &out->series_key, fields.series_key));
  }
  ForecastTimestamps forecast_times =
      continue_timestamps(request.timestamps, request.timestamp_count, model.pred_len);
  out->forecast_timestamps = std::move(forecast_times.times);
  out->forecast_timestamps_note = std::move(forecast_times.note);
  ScalerMatch scaler;
  TSSERVE_RETURN_IF_ERROR(match_scaler(request.scaler_mode, request.variable_names, g.variables,
                                       model, &scaler, fields.scaler));
  TSSERVE_RETURN_IF_ERROR(gather_time_inputs(request.timestamps, request.timestamp_count, g, model,
                                             fields.timestamps, out));
  if (model.maps_per_sample()) {
    TSSERVE_RETURN_IF_ERROR(resolve_sample_attention(
        *request.attention, g, model, request.variable_names, out, fields.attention));
  } else {
    TSSERVE_RETURN_IF_ERROR(check_decoder_maps(*request.attention, model, fields.attention));
    TSSERVE_RETURN_IF_ERROR(resolve_forecast_attention(
        *request.attention, model.e_layers, g.variables, &out->attention, fields.attention));
  }
  TSSERVE_RETURN_IF_ERROR(gather_series(series, g, fields.series, request.variable_names, model,
                                        std::move(scaler), out));
  return resolve_interval_levels(*request.interval_levels, *out, model, fields.interval_levels,
                                 &out->interval_levels);
}

Status decode_plain_forecast_request(const PlainForecastRequest& request,
                                     const ForecastFieldNames& fields, const ModelShape& model,
                                     const RequestLimits& limits, ForecastInput* out) {
  TSSERVE_RETURN_IF_ERROR(resolve_request_id(request.request_id, &out->request_id));
  out->raw_output = false;
  ForecastRequestView view;
  view.series = view_checked_floats(request.shape, 2,
                                    reinterpret_cast<const unsigned char*>(request.values.data()),
                                    static_cast<int64_t>(request.values.size()));
  view.by_variable = true;
  view.variable_names = request.columns;
  view.timestamps = request.timestamps.data();
  view.timestamp_count = static_cast<int64_t>(request.timestamps.size());
  view.series_key = &request.series_key;
  view.scaler_mode = request.scaler;
  view.attention = &request.attention;
  view.interval_levels = &request.intervals;
  return decode_forecast_view(view, fields, model, limits, out);
}

}  // namespace tsserve::server
