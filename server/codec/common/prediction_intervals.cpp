#include "server/codec/common/prediction_intervals.h"

#include <sstream>

namespace tsserve::server {
namespace {

std::string level_text(double level) {
  std::ostringstream out;
  out << level;
  return out.str();
}

}  // namespace

int64_t calibration_column(const ForecastInput& input, const ModelShape& model,
                           int64_t forecast_row) {
  const int64_t column =
      input.scaler_column[static_cast<size_t>(input.series_row_of(forecast_row))];
  // The calibration's columns are the scaler's last `calibration.columns` ones: all of them,
  // or a subset model's targets.
  const int64_t first =
      static_cast<int64_t>(model.scaler_columns.size()) - model.calibration.columns;
  return column >= first ? column - first : -1;
}

Status resolve_interval_levels(const std::vector<double>& levels, const ForecastInput& input,
                               const ModelShape& model, const std::string& field,
                               std::vector<int32_t>* out) {
  out->clear();
  if (levels.empty()) return Status();
  for (size_t i = 0; i < levels.size(); ++i) {
    const std::string where = field + "[" + std::to_string(i) + "]";
    if (!(levels[i] > 0 && levels[i] < 1)) {
      return {StatusCode::kInvalidArgument, where + ": " + level_text(levels[i]) +
                                                " is not a level; expected a number in (0, 1)"};
    }
    for (size_t j = 0; j < i; ++j) {
      if (levels[j] == levels[i]) {
        return {StatusCode::kInvalidArgument, where + ": " + level_text(levels[i]) + " repeats " +
                                                  field + "[" + std::to_string(j) +
                                                  "]; ask for each level once"};
      }
    }
  }
  const model::Calibration& calibration = model.calibration;
  if (calibration.empty()) {
    return {StatusCode::kFailedPrecondition,
            field + ": model '" + model.name +
                "' has no calibration, so it has no intervals; calibrate it with `" +
                model::calibrate_command() +
                "` (writes the config's \"calibration\" block) "
                "and reload"};
  }
  if (!input.scaler_applied) {
    return {StatusCode::kFailedPrecondition,
            field +
                ": intervals need the model's scaler applied (its calibration is per scaler "
                "column, in the scaler's space); send variable_names among the columns (" +
                std::to_string(model.scaler_columns.size()) +
                " of them, see GetModelInfo) or all of them unnamed, and a scaler_mode other "
                "than NONE"};
  }
  const int64_t per_sample = input.series_rows / input.samples;
  const auto scaler_columns = static_cast<int64_t>(model.scaler_columns.size());
  if (model.unit == SampleUnit::kSample && per_sample != scaler_columns) {
    return {StatusCode::kFailedPrecondition,
            field + ": this " + model.family + " was calibrated on samples of its " +
                std::to_string(scaler_columns) +
                " columns together, and its forecast of a "
                "variable depends on the others; a sample of " +
                std::to_string(per_sample) + " variables has no calibrated intervals"};
  }
  // A model forecasting a subset was calibrated on the scaler's last K columns (its
  // targets): the request's targets must be those columns.
  for (int64_t row = 0; row < input.forecast_per_sample(); ++row) {
    const int64_t series_row = input.series_row_of(row);
    if (calibration_column(input, model, row) >= 0) continue;
    const int64_t column = input.scaler_column[static_cast<size_t>(series_row)];
    return {StatusCode::kFailedPrecondition,
            field + ": this " + model.family + " (features " + model.features +
                ") was calibrated on its target, the scaler's column '" +
                model.scaler_columns.back() + "', but the request's variable " +
                std::to_string(series_row) + " that it forecasts is column '" +
                model.scaler_columns[static_cast<size_t>(column)] +
                "'; send the variables in training order (GetModelInfo scaler_columns)"};
  }
  for (size_t i = 0; i < levels.size(); ++i) {
    const int index = calibration.level_index(levels[i]);
    if (index < 0) {
      return {StatusCode::kInvalidArgument, field + "[" + std::to_string(i) +
                                                "]: " + level_text(levels[i]) +
                                                " is not a calibrated level; model '" + model.name +
                                                "' has " + calibration.levels_text()};
    }
    out->push_back(index);
  }
  return Status();
}

std::vector<double> interval_widths(const ForecastInput& input, const ModelShape& model,
                                    int32_t level_index) {
  const model::Calibration& calibration = model.calibration;
  const auto level = static_cast<size_t>(level_index);
  const int64_t horizon = model.pred_len;
  std::vector<double> widths(static_cast<size_t>(input.forecast_rows() * horizon));
  for (int64_t row = 0; row < input.forecast_rows(); ++row) {
    const int64_t column = calibration_column(input, model, row);
    for (int64_t h = 0; h < horizon; ++h) {
      widths[static_cast<size_t>(row * horizon + h)] = calibration.quantile(level, h, column);
    }
  }
  return widths;
}

IntervalBand interval_band(const ForecastInput& input, const ModelShape& model,
                           const std::vector<float>& forecast, int32_t level_index) {
  return band_around(model.calibration.levels[static_cast<size_t>(level_index)], forecast,
                     interval_widths(input, model, level_index));
}

}  // namespace tsserve::server
