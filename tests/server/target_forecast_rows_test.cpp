// A model that forecasts a subset of a sample's variables (TSLib's features "MS": the last
// variable, the target): which series row each forecast row stands for, and the numbers
// every protocol writes from it (unscaled with the target's scaler column), its interval
// band (the target's calibration column) and the forecast the store keeps. Expected values
// are computed by hand here.

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "server/accuracy/issued_forecast.h"
#include "server/codec/common/forecast_values.h"
#include "server/codec/common/prediction_intervals.h"

namespace tsserve::server {
namespace {

constexpr int64_t kSteps = 2;  // F

// Two samples of three variables (scaler columns a, b, c in order), the target c alone
// forecast: [2, F] in the model's space.
ModelShape target_model() {
  ModelShape model;
  model.name = "ms";
  model.pred_len = kSteps;
  model.unit = SampleUnit::kSample;
  model.features = "MS";
  model.forecast_variables = 1;
  model.scaler_columns = {"a", "b", "c"};
  model.scaler_mean = {0, 10, 100};
  model.scaler_std = {1, 2, 4};
  model.calibration.levels = {0.9};
  model.calibration.pred_len = kSteps;
  model.calibration.columns = 1;
  model.calibration.quantiles = {0.5, 0.25};  // [level][step][target]
  return model;
}

ForecastInput target_input() {
  ForecastInput input;
  input.series_rows = 6;
  input.samples = 2;
  input.forecast_variables = 1;
  input.scaler_applied = true;
  input.scaler_column = {0, 1, 2, 0, 1, 2};
  input.variable_names = {"a", "b", "c"};
  return input;
}

std::vector<float> stored(const ForecastInput& input, const ModelShape& model,
                          const std::vector<float>& forecast) {
  std::vector<float> out(forecast.size());
  store_forecast(input, model, forecast, reinterpret_cast<unsigned char*>(out.data()));
  return out;
}

TEST(TargetForecastRows, EachForecastRowIsItsSamplesLastVariable) {
  const ForecastInput input = target_input();
  EXPECT_EQ(input.forecast_rows(), 2);
  EXPECT_EQ(input.series_row_of(0), 2);
  EXPECT_EQ(input.series_row_of(1), 5);
  EXPECT_EQ(forecast_variable_indices(input), (std::vector<int32_t>{2}));
  EXPECT_EQ(forecast_shape(input, target_model()), (std::vector<int64_t>{1, kSteps}));
  ForecastInput all = input;
  all.forecast_variables = 0;
  EXPECT_EQ(all.forecast_rows(), 6);
  EXPECT_TRUE(forecast_variable_indices(all).empty());
}

TEST(TargetForecastRows, TheTargetIsUnscaledWithItsOwnColumn) {
  const ModelShape model = target_model();
  ForecastInput input = target_input();
  // Column c: x = 100 + 4 x'.
  EXPECT_EQ(stored(input, model, {1, 2, -1, 0.5}), (std::vector<float>{104, 108, 96, 102}));
  input.variables_by_time = false;  // [F, 1] per sample: the same order for one column
  EXPECT_EQ(stored(input, model, {1, 2, -1, 0.5}), (std::vector<float>{104, 108, 96, 102}));
  ForecastOutput output;
  output.forecast = {1, 2, -1, 0.5};
  EXPECT_TRUE(check_forecast_output(input, model, output).ok());
  output.forecast.resize(12);  // a row per variable is not this model's answer
  EXPECT_EQ(check_forecast_output(input, model, output).code(), StatusCode::kInternal);
}

TEST(TargetForecastRows, TheBandIsTheTargetsQuantileAndTheStoreKeepsTheTarget) {
  const ModelShape model = target_model();
  const ForecastInput input = target_input();
  std::vector<int32_t> levels;
  ASSERT_TRUE(resolve_interval_levels({0.9}, input, model, "interval_levels", &levels).ok());
  const IntervalBand band = interval_band(input, model, {1, 2, -1, 0.5}, levels[0]);
  EXPECT_EQ(band.lower, (std::vector<float>{0.5, 1.75, -1.5, 0.25}));
  EXPECT_EQ(band.upper, (std::vector<float>{1.5, 2.25, -0.5, 0.75}));

  ForecastInput one = input;
  one.series_rows = 3;
  one.samples = 1;
  one.scaler_column = {0, 1, 2};
  one.forecast_timestamps = {7200, 10800};
  const IssuedForecast issued = issued_forecast_of(one, model, {1, 2});
  EXPECT_EQ(issued.variable_names, (std::vector<std::string>{"c"}));
  EXPECT_EQ(issued.scaler_mean, (std::vector<double>{100}));
  EXPECT_EQ(issued.scaler_std, (std::vector<double>{4}));
  EXPECT_EQ(issued.to_model_space(0, 108), 2);
}

TEST(TargetForecastRows, ATargetOutsideTheCalibrationHasNoBand) {
  const ModelShape model = target_model();
  ForecastInput input = target_input();
  input.scaler_column = {2, 1, 0, 2, 1, 0};  // the sample's last variable is column a
  std::vector<int32_t> levels;
  const Status status = resolve_interval_levels({0.9}, input, model, "interval_levels", &levels);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("calibrated on its target, the scaler's column 'c'"),
            std::string::npos)
      << status.message();
}

}  // namespace
}  // namespace tsserve::server
