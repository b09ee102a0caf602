#include "server/accuracy/issued_forecast.h"

namespace tsserve::server {

IssuedForecast issued_forecast_of(const ForecastInput& input, const ModelShape& model,
                                  const std::vector<float>& forecast) {
  IssuedForecast issued;
  issued.series_key = input.series_key;
  issued.model = model.name;
  issued.version = model.version;
  issued.times = input.forecast_timestamps;
  issued.values = forecast;
  const int64_t n = input.series_rows;
  issued.variable_names = input.variable_names;
  if (issued.variable_names.empty()) {
    for (int64_t i = 0; i < n; ++i) issued.variable_names.push_back(std::to_string(i));
  }
  if (input.scaler_applied) {
    for (const int32_t column : input.scaler_column) {
      issued.scaler_mean.push_back(model.scaler_mean[static_cast<size_t>(column)]);
      issued.scaler_std.push_back(model.scaler_std[static_cast<size_t>(column)]);
    }
  }
  return issued;
}

}  // namespace tsserve::server
