#include "server/call/window_forecast_request.h"

namespace tsserve::server {

v1::ForecastRequest window_forecast_request(const SeriesWindow& window,
                                            const Observation& observation,
                                            const ModelShape& shape) {
  v1::ForecastRequest request;
  request.set_model(shape.name);
  request.set_model_version(shape.version);
  // [N, T], the default layout: the forecast comes back [N, F], as every door's default
  // (the JSON API writes it by column). The window is [T, N]: transposed here.
  request.set_layout(v1::SERIES_LAYOUT_VARIABLES_BY_TIME);
  const int64_t points = window.points();
  const int64_t variables = window.binding.variables;
  v1::Tensor* series = request.mutable_series();
  series->add_shape(variables);
  series->add_shape(points);
  series->mutable_values()->Reserve(static_cast<int>(points * variables));
  for (int64_t n = 0; n < variables; ++n) {
    for (int64_t t = 0; t < points; ++t) {
      series->add_values(window.values[static_cast<std::size_t>(t * variables + n)]);
    }
  }
  for (const int64_t time : window.timestamps()) request.add_timestamps(time);
  for (const std::string& name : window.binding.variable_names) request.add_variable_names(name);
  request.set_scaler_mode(static_cast<v1::ScalerMode>(observation.scaler_mode));
  const std::vector<double>& levels =
      observation.interval_levels.empty() ? shape.calibration.levels : observation.interval_levels;
  for (const double level : levels) request.add_interval_levels(level);
  request.set_series_key(window.series_key);
  request.set_request_id(observation.request_id);
  return request;
}

}  // namespace tsserve::server
