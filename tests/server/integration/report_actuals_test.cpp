// Forecast timestamps, series_key and ReportActuals over gRPC on loopback: the kept
// forecast scores actuals into /metrics with the errors computed here from the response's
// own forecast; repeats, unknown keys, NaN and malformed reports are counted or refused.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>

#include "server_harness.h"

namespace tsserve::server::testing {
namespace {

constexpr int64_t kStart = 1'700'000'000;  // Unix seconds, an hour boundary
constexpr int64_t kHour = 3600;

// Two variables named as ETTh1's scaler columns, 336 hourly points ending at kStart.
v1::ForecastRequest keyed_request(const std::string& key, v1::ScalerMode scaler) {
  v1::ForecastRequest request = forecast_request(2, 336, 7);
  request.add_variable_names("HUFL");
  request.add_variable_names("OT");
  request.set_scaler_mode(scaler);
  for (int64_t t = 0; t < 336; ++t) request.add_timestamps(kStart + (t - 335) * kHour);
  request.set_series_key(key);
  return request;
}

grpc::Status report(ServerHarness& harness, const v1::ReportActualsRequest& request,
                    v1::ReportActualsResponse* response) {
  grpc::ClientContext context;
  return harness.stub().ReportActuals(&context, request, response);
}

// Actuals for the first `steps` forecast times of both variables: forecast + offset(t, n).
v1::ReportActualsRequest actuals(const std::string& key, const v1::ForecastResponse& forecast,
                                 int steps, double (*offset)(int, int)) {
  const std::vector<float> values = floats(forecast.forecast());  // [2, 96]
  v1::ReportActualsRequest request;
  request.set_series_key(key);
  request.add_variable_names("HUFL");
  request.add_variable_names("OT");
  for (int k = 0; k < steps; ++k) {
    request.add_timestamps(forecast.forecast_timestamps(k));
    for (int n = 0; n < 2; ++n) request.add_values(values[n * 96 + k] + offset(k, n));
  }
  return request;
}

TEST(ReportActuals, ForecastTimesContinueTheRequestsHourlyStepAndTheForecastIsKept) {
  ServerHarness harness;
  const v1::ForecastResponse response =
      forecast_expecting_ok(harness, keyed_request("site-1", v1::SCALER_MODE_NONE));
  ASSERT_EQ(response.forecast_timestamps_size(), 96);
  EXPECT_EQ(response.forecast_timestamps(0), kStart + kHour);
  EXPECT_EQ(response.forecast_timestamps(95), kStart + 96 * kHour);
  EXPECT_TRUE(response.forecast_timestamps_note().empty());
  EXPECT_TRUE(response.forecast_stored());
  EXPECT_TRUE(metric_reaches(harness, "tsserve_forecast_store_entries", 1));
}

TEST(ReportActuals, ErrorsOfScoredPointsReachTheMetricsOnceEach) {
  ServerHarness harness;
  const v1::ForecastResponse response =
      forecast_expecting_ok(harness, keyed_request("site-1", v1::SCALER_MODE_NONE));
  // Unscaled (scaler NONE): the model's space is the request's, so the errors are exact.
  auto offset = [](int k, int n) { return 0.25 * (k + 1) * (n == 0 ? 1 : -2); };
  v1::ReportActualsRequest request = actuals("site-1", response, 30, offset);
  double abs_1_24 = 0, squared_1_24 = 0, abs_25_48 = 0;
  const std::vector<float> values = floats(response.forecast());
  for (int k = 0; k < 30; ++k) {
    for (int n = 0; n < 2; ++n) {
      const double error = double{values[n * 96 + k]} - request.values(k * 2 + n);
      (k < 24 ? abs_1_24 : abs_25_48) += std::fabs(error);
      if (k < 24) squared_1_24 += error * error;
    }
  }
  v1::ReportActualsResponse outcome;
  ASSERT_TRUE(report(harness, request, &outcome).ok());
  EXPECT_EQ(outcome.matched(), 60);
  // The same report again scores nothing more.
  ASSERT_TRUE(report(harness, request, &outcome).ok());
  EXPECT_EQ(outcome.matched(), 0);
  EXPECT_EQ(outcome.unmatched_already_reported(), 60);

  const std::string metrics = harness.scrape();
  const std::string day1 = "{horizon=\"1-24\",model=\"patchtst-etth1\",version=\"1\"}";
  const std::string day2 = "{horizon=\"25-48\",model=\"patchtst-etth1\",version=\"1\"}";
  const std::optional<double> abs_day1 =
      metric_value(metrics, "tsserve_forecast_abs_error_total" + day1);
  const std::optional<double> squared_day1 =
      metric_value(metrics, "tsserve_forecast_squared_error_total" + day1);
  const std::optional<double> abs_day2 =
      metric_value(metrics, "tsserve_forecast_abs_error_total" + day2);
  ASSERT_TRUE(abs_day1 && squared_day1 && abs_day2) << "error series missing from\n" << metrics;
  EXPECT_NEAR(*abs_day1, abs_1_24, 1e-9 * abs_1_24);
  EXPECT_NEAR(*squared_day1, squared_1_24, 1e-9 * squared_1_24);
  EXPECT_NEAR(*abs_day2, abs_25_48, 1e-9 * abs_25_48);
  // std::optional == number: false when the series is absent.
  EXPECT_EQ(metric_value(metrics, "tsserve_forecast_scored_points_total" + day1), 48);
  EXPECT_EQ(metric_value(metrics, "tsserve_forecast_scored_points_total" + day2), 12);
  EXPECT_EQ(metric_value(metrics, "tsserve_actuals_points_total{result=\"already_reported\"}"), 60);
}

TEST(ReportActuals, ScaledForecastsScoreActualsScaledByTheirColumn) {
  ServerHarness harness;
  const v1::ForecastResponse response =
      forecast_expecting_ok(harness, keyed_request("site-2", v1::SCALER_MODE_REQUIRED));
  ASSERT_TRUE(response.scaler_applied());
  // Actuals equal to the (unscaled) forecast: scaled by the same column, the error is
  // float rounding only, however large the column's mean and std.
  v1::ReportActualsResponse outcome;
  ASSERT_TRUE(
      report(harness, actuals("site-2", response, 10, [](int, int) { return 0.0; }), &outcome)
          .ok());
  EXPECT_EQ(outcome.matched(), 20);
  const std::string metrics = harness.scrape();
  // The series must be there: a missing or mislabelled one would otherwise pass the bound.
  const std::optional<double> abs_error =
      metric_value(metrics,
                   "tsserve_forecast_abs_error_total{horizon=\"1-24\",model="
                   "\"patchtst-etth1\",version=\"1\"}");
  ASSERT_TRUE(abs_error.has_value()) << "no abs error series for the scored points in\n" << metrics;
  EXPECT_EQ(metric_value(metrics,
                         "tsserve_forecast_scored_points_total{horizon=\"1-24\",model="
                         "\"patchtst-etth1\",version=\"1\"}"),
            20);
  EXPECT_LT(*abs_error, 20 * 1e-5);
}

TEST(ReportActuals, IrregularOrMissingTimesGiveNoForecastTimesAndNothingKept) {
  ServerHarness harness;
  v1::ForecastRequest irregular = keyed_request("site-3", v1::SCALER_MODE_NONE);
  irregular.set_timestamps(100, irregular.timestamps(100) - 60);
  v1::ForecastResponse response = forecast_expecting_ok(harness, irregular);
  EXPECT_EQ(response.forecast_timestamps_size(), 0);
  EXPECT_NE(response.forecast_timestamps_note().find("irregular"), std::string::npos);
  EXPECT_FALSE(response.forecast_stored());

  v1::ForecastRequest untimed = keyed_request("site-3", v1::SCALER_MODE_NONE);
  untimed.clear_timestamps();
  response = forecast_expecting_ok(harness, untimed);
  EXPECT_FALSE(response.forecast_stored());
  EXPECT_NE(response.forecast_timestamps_note().find("series_key"), std::string::npos);
  EXPECT_TRUE(metric_reaches(
      harness, "tsserve_forecast_store_refused_total{reason=\"no_forecast_timestamps\"}", 2));
}

TEST(ReportActuals, BadReportsAreRefusedByFieldOrCountedAndTheServerKeepsServing) {
  ServerHarness harness;
  const v1::ForecastResponse response =
      forecast_expecting_ok(harness, keyed_request("site-4", v1::SCALER_MODE_NONE));
  v1::ReportActualsResponse outcome;

  v1::ReportActualsRequest unknown_key =
      actuals("nobody", response, 2, [](int, int) { return 0.0; });
  ASSERT_TRUE(report(harness, unknown_key, &outcome).ok());
  EXPECT_EQ(outcome.unmatched_unknown_key(), 4);

  v1::ReportActualsRequest gaps = actuals("site-4", response, 2, [](int, int) { return 0.0; });
  gaps.set_values(0, std::numeric_limits<double>::quiet_NaN());
  gaps.set_timestamps(1, kStart - kHour);  // an input time, not a forecast time
  ASSERT_TRUE(report(harness, gaps, &outcome).ok());
  EXPECT_EQ(outcome.unmatched_not_finite(), 1);
  EXPECT_EQ(outcome.matched(), 1);
  EXPECT_EQ(outcome.unmatched_no_forecast(), 2);

  v1::ReportActualsRequest unknown_variable = gaps;
  unknown_variable.set_variable_names(1, "LULL");
  ASSERT_TRUE(report(harness, unknown_variable, &outcome).ok());
  EXPECT_EQ(outcome.unmatched_unknown_variable(), 2);

  v1::ReportActualsRequest short_values = gaps;
  short_values.mutable_values()->RemoveLast();
  const grpc::Status status = report(harness, short_values, &outcome);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message().rfind("values:", 0), 0u) << status.error_message();

  EXPECT_TRUE(metric_reaches(
      harness,
      "tsserve_requests_total{code=\"INVALID_ARGUMENT\",method=\"ReportActuals\",protocol=\"v1\"}",
      1));
  forecast_expecting_ok(harness, keyed_request("site-4", v1::SCALER_MODE_NONE));  // still serving
}

TEST(ReportActuals, NeedsTheBearerTokenLikeEveryOtherCall) {
  const std::filesystem::path token_file = std::filesystem::temp_directory_path() /
                                           ("tsserve-actuals-token-" + std::to_string(::getpid()));
  std::ofstream(token_file) << "s3cret-token-for-actuals\n";
  ServerConfig config = test_config();
  config.server.auth_token_file = token_file.string();
  {
    ServerHarness harness(config);
    v1::ReportActualsRequest request;
    request.set_series_key("k");
    request.add_variable_names("OT");
    request.add_timestamps(kStart);
    request.add_values(1.0);
    v1::ReportActualsResponse outcome;
    EXPECT_EQ(report(harness, request, &outcome).error_code(), grpc::StatusCode::UNAUTHENTICATED);
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer s3cret-token-for-actuals");
    const grpc::Status status = harness.stub().ReportActuals(&context, request, &outcome);
    EXPECT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(outcome.unmatched_unknown_key(), 1);
  }
  std::filesystem::remove(token_file);
}

TEST(ReportActuals, TheStoreStaysWithinItsEntriesAndCountsWhatItDrops) {
  ServerConfig config = test_config();
  config.accuracy.forecast_store_max_entries = 4;
  ServerHarness harness(config);
  for (int i = 0; i < 10; ++i) {
    forecast_expecting_ok(harness, keyed_request("key-" + std::to_string(i), v1::SCALER_MODE_NONE));
  }
  const std::string metrics = harness.scrape();
  EXPECT_EQ(metric_value(metrics, "tsserve_forecast_store_entries"), 4);
  EXPECT_EQ(metric_value(metrics, "tsserve_forecast_store_dropped_total{reason=\"evicted\"}"), 6);
}

}  // namespace
}  // namespace tsserve::server::testing
