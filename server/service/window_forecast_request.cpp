#include "server/service/window_forecast_request.h"

namespace tsserve::server {

v1::ForecastRequest window_forecast_request(const SeriesWindow& window,
                                            const Observation& observation,
                                            const ModelShape& shape) {
  v1::ForecastRequest request;
  request.set_model(shape.name);
  request.set_model_version(shape.version);
  request.set_layout(v1::SERIES_LAYOUT_TIME_BY_VARIABLES);
  v1::Tensor* series = request.mutable_series();
  series->add_shape(window.points());
  series->add_shape(window.binding.variables);
  series->mutable_values()->Add(window.values.begin(), window.values.end());
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
