#include "server/call/window_forecast_request.h"

namespace tsserve::server {

PlainForecastRequest window_forecast_request(const SeriesWindow& window,
                                             const Observation& observation,
                                             const ModelShape& shape) {
  PlainForecastRequest request;
  // [N, T], the default layout: the forecast comes back [N, F], as every door's default
  // (the JSON API writes it by column). The window is [T, N]: transposed here.
  const int64_t points = window.points();
  const int64_t variables = window.binding.variables;
  request.shape[0] = variables;
  request.shape[1] = points;
  request.values.reserve(static_cast<std::size_t>(points * variables));
  for (int64_t n = 0; n < variables; ++n) {
    for (int64_t t = 0; t < points; ++t) {
      request.values.push_back(window.values[static_cast<std::size_t>(t * variables + n)]);
    }
  }
  request.timestamps = window.timestamps();
  request.columns = window.binding.variable_names;
  request.scaler = observation.scaler_mode;
  request.intervals =
      observation.interval_levels.empty() ? shape.calibration.levels : observation.interval_levels;
  request.series_key = window.series_key;
  request.request_id = observation.request_id;
  return request;
}

Status decode_window_forecast(const PlainForecastRequest& request, const ModelShape& model,
                              const RequestLimits& limits, ForecastInput* out) {
  return decode_plain_forecast_request(request, ForecastFieldNames{}, model, limits, out);
}

}  // namespace tsserve::server
