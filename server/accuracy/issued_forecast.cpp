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
  // The forecast's rows: every variable, or the targets of a model that forecasts a subset.
  for (int64_t row = 0; row < input.forecast_rows(); ++row) {
    const int64_t series_row = input.series_row_of(row);
    issued.variable_names.push_back(stored_variable_name(input.variable_names, series_row));
    if (input.scaler_applied) {
      const auto column = static_cast<size_t>(input.scaler_column[static_cast<size_t>(series_row)]);
      issued.scaler_mean.push_back(model.scaler_mean[column]);
      issued.scaler_std.push_back(model.scaler_std[column]);
    }
  }
  return issued;
}

}  // namespace tsserve::server
