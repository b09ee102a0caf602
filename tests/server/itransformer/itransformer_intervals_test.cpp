// Prediction intervals from the bundled (calibrated) iTransformer on loopback: ETTh1's first
// test window gets forecast -+ quantile x std (the config file's numbers), and a sample of
// another N, which a model serving any N would otherwise take, is refused: the calibration
// holds for the 7 columns forecast together.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "server_harness.h"

namespace tsserve::server::testing {
namespace {

const std::string kStem = std::string(TSSERVE_SOURCE_DIR) + "/model/default/itransformer_etth1";

nlohmann::json bundled_config() {
  std::ifstream file(kStem + ".json");
  return nlohmann::json::parse(file);
}

// N variables of the bundled scaler's columns (the first N), with hourly timestamps.
v1::ForecastRequest hourly_request(int variables) {
  v1::ForecastRequest request = forecast_request(variables, 96, 21);
  const char* names[] = {"HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"};
  for (int v = 0; v < variables; ++v) request.add_variable_names(names[v]);
  for (int t = 0; t < 96; ++t) request.add_timestamps(1500000000 + 3600 * t);
  request.add_interval_levels(0.9);
  return request;
}

TEST(ITransformerIntervals, BandsAreTheForecastPlusMinusTheStoredQuantile) {
  ServerConfig config = test_config();
  config.model.model = kStem + ".pt";
  ServerHarness harness(config);
  const nlohmann::json json = bundled_config();
  v1::ForecastResponse response;
  grpc::ClientContext context;
  const grpc::Status status = harness.stub().Forecast(&context, hourly_request(7), &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.intervals_size(), 1);
  const auto& quantiles = json["calibration"]["quantiles"][2];  // levels[2] = 0.9
  ASSERT_EQ(json["calibration"]["levels"][2].get<double>(), 0.9);
  const auto& forecast = response.forecast().values();
  for (size_t v = 0; v < 7; ++v) {
    for (size_t h = 0; h < 96; ++h) {
      const int k = static_cast<int>(v * 96 + h);
      const double q = quantiles[h][v].get<double>() * json["scaler"]["std"][v].get<double>();
      const double tolerance = 1e-5 * std::max(1.0, std::fabs(forecast[k]) + q);
      ASSERT_NEAR(response.intervals(0).lower().values(k), forecast[k] - q, tolerance);
      ASSERT_NEAR(response.intervals(0).upper().values(k), forecast[k] + q, tolerance);
    }
  }
}

TEST(ITransformerIntervals, ASampleOfAnotherNHasNoCalibratedIntervals) {
  nlohmann::json json = bundled_config();
  json["any_variable_count"] = true;
  const std::string path =
      ::testing::TempDir() + "/itransformer_any_n_" + std::to_string(getpid()) + ".json";
  std::ofstream(path) << json.dump();
  ServerConfig config = test_config();
  config.model.model = kStem + ".pt";
  config.model.model_config = path;
  ServerHarness harness(config);
  v1::ForecastResponse response;
  grpc::ClientContext context;
  const grpc::Status status = harness.stub().Forecast(&context, hourly_request(3), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << status.error_message();
  EXPECT_NE(status.error_message().find("calibrated on samples of its 7 columns"),
            std::string::npos)
      << status.error_message();
  v1::ForecastRequest point = hourly_request(3);
  point.clear_interval_levels();  // the point forecast of 3 is still served
  grpc::ClientContext point_context;
  EXPECT_TRUE(harness.stub().Forecast(&point_context, point, &response).ok());
  std::remove(path.c_str());
}

}  // namespace
}  // namespace tsserve::server::testing
