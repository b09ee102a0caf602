// Prediction intervals over gRPC on loopback with the bundled (calibrated) PatchTST: the
// served bands equal the served forecast -+ the stored quantile times the column's std,
// computed here from the config file's JSON (not through the server's parser or its band
// arithmetic); in both layouts; and every bad request a clear error.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "../oip_test_support.h"
#include "server_harness.h"

namespace tsserve::server::testing {
namespace {

nlohmann::json bundled_config() {
  std::ifstream file(std::string(TSSERVE_SOURCE_DIR) + "/model/default/patchtst_etth1.json");
  return nlohmann::json::parse(file);
}

grpc::Status forecast(ServerHarness& harness, const v1::ForecastRequest& request,
                      v1::ForecastResponse* response) {
  grpc::ClientContext context;
  return harness.stub().Forecast(&context, request, response);
}

// lower/upper of interval `i` against forecast -+ q * std, for variable v (scaler column
// `columns[v]`) at step h, in the layout the request used.
void expect_bands(const v1::ForecastResponse& response, const nlohmann::json& config,
                  const std::vector<int>& columns, bool by_variable) {
  const auto& calibration = config["calibration"];
  const std::vector<double> levels = calibration["levels"];
  const std::vector<double> stds = config["scaler"]["std"];
  const int n = static_cast<int>(columns.size());
  const std::vector<float> point = floats(response.forecast());
  for (const auto& interval : response.intervals()) {
    const auto level = static_cast<size_t>(
        std::find(levels.begin(), levels.end(), interval.level()) - levels.begin());
    ASSERT_LT(level, levels.size());
    const auto shape = [](const v1::Tensor& t) {
      return std::vector<int64_t>(t.shape().begin(), t.shape().end());
    };
    EXPECT_EQ(shape(interval.lower()), shape(response.forecast()));
    EXPECT_EQ(shape(interval.upper()), shape(response.forecast()));
    const std::vector<float> lower = floats(interval.lower());
    const std::vector<float> upper = floats(interval.upper());
    for (int v = 0; v < n; ++v) {
      for (int h = 0; h < 96; ++h) {
        const size_t k = static_cast<size_t>(by_variable ? v * 96 + h : h * n + v);
        const auto column = static_cast<size_t>(columns[static_cast<size_t>(v)]);
        const double q =
            calibration["quantiles"][level][static_cast<size_t>(h)][column].get<double>() *
            stds[column];
        const double tolerance = 1e-5 * std::max(1.0, std::fabs(point[k]) + q);
        ASSERT_NEAR(lower[k], point[k] - q, tolerance) << "level " << interval.level() << " v " << v;
        ASSERT_NEAR(upper[k], point[k] + q, tolerance) << "level " << interval.level() << " v " << v;
      }
    }
  }
}

TEST(PredictionIntervals, BandsAreTheForecastPlusMinusTheStoredQuantileInTheSeriesUnits) {
  ServerHarness harness;
  const nlohmann::json config = bundled_config();
  v1::ForecastRequest request = forecast_request(7, 400, 3);  // 7 = the scaler's columns
  request.add_interval_levels(0.95);
  request.add_interval_levels(0.8);
  v1::ForecastResponse response;
  ASSERT_TRUE(forecast(harness, request, &response).ok());
  ASSERT_TRUE(response.scaler_applied());
  ASSERT_EQ(response.intervals_size(), 2);
  EXPECT_EQ(response.intervals(0).level(), 0.95);  // the request's order
  EXPECT_EQ(response.intervals(1).level(), 0.8);
  expect_bands(response, config, {0, 1, 2, 3, 4, 5, 6}, true);
  // Nested: the wider level's band holds the narrower one's.
  const auto wide_lower = floats(response.intervals(0).lower());
  const auto narrow_lower = floats(response.intervals(1).lower());
  for (size_t k = 0; k < wide_lower.size(); ++k) ASSERT_LE(wide_lower[k], narrow_lower[k]);
}

TEST(PredictionIntervals, NamedColumnsAndTheOtherLayoutTakeTheirColumnsQuantiles) {
  ServerHarness harness;
  const nlohmann::json config = bundled_config();
  // OT and HULL (columns 6 and 1), time by variables: [T, 2].
  const v1::ForecastRequest source = forecast_request(2, 336, 4);
  v1::ForecastRequest request;
  request.set_layout(v1::SERIES_LAYOUT_TIME_BY_VARIABLES);
  request.mutable_series()->add_shape(336);
  request.mutable_series()->add_shape(2);
  for (int t = 0; t < 336; ++t) {
    for (int v = 0; v < 2; ++v) request.mutable_series()->add_values(source.series().values(v * 336 + t));
  }
  request.add_variable_names("OT");
  request.add_variable_names("HULL");
  request.add_interval_levels(0.9);
  v1::ForecastResponse response;
  const grpc::Status status = forecast(harness, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_TRUE(response.scaler_applied());
  ASSERT_EQ(response.intervals_size(), 1);
  expect_bands(response, config, {6, 1}, false);
}

TEST(PredictionIntervals, GetModelInfoListsTheCalibratedLevels) {
  ServerHarness harness;
  v1::GetModelInfoResponse info;
  grpc::ClientContext context;
  ASSERT_TRUE(harness.stub().GetModelInfo(&context, {}, &info).ok());
  const std::vector<double> levels(info.info().calibration_levels().begin(),
                                   info.info().calibration_levels().end());
  EXPECT_EQ(levels, bundled_config()["calibration"]["levels"].get<std::vector<double>>());
  EXPECT_NE(info.info().calibration_source().find("ETTh1.csv split 8640/2880/2880"),
            std::string::npos)
      << info.info().calibration_source();
}

struct BadLevels {
  const char* name;
  std::vector<double> levels;
  bool no_scaler;
  grpc::StatusCode code;
  std::vector<std::string> message_parts;
};

TEST(PredictionIntervals, BadLevelsAreRefusedNamingTheLevelAndWhatIsAccepted) {
  ServerHarness harness;
  const std::vector<BadLevels> cases = {
      {"one", {1.0}, false, grpc::StatusCode::INVALID_ARGUMENT, {"interval_levels[0]", "(0, 1)"}},
      {"zero", {0.8, 0.0}, false, grpc::StatusCode::INVALID_ARGUMENT, {"interval_levels[1]", "(0, 1)"}},
      {"nan", {std::nan("")}, false, grpc::StatusCode::INVALID_ARGUMENT, {"interval_levels[0]"}},
      {"repeated", {0.8, 0.95, 0.8}, false, grpc::StatusCode::INVALID_ARGUMENT,
       {"interval_levels[2]", "repeats interval_levels[0]"}},
      {"uncalibrated level", {0.85}, false, grpc::StatusCode::INVALID_ARGUMENT,
       {"0.85 is not a calibrated level", "0.5, 0.8, 0.9, 0.95, 0.99"}},
      {"scaler off", {0.8}, true, grpc::StatusCode::FAILED_PRECONDITION,
       {"interval_levels", "scaler"}},
  };
  for (const auto& bad : cases) {
    v1::ForecastRequest request = forecast_request(7, 336, 5);
    for (double level : bad.levels) request.add_interval_levels(level);
    if (bad.no_scaler) request.set_scaler_mode(v1::SCALER_MODE_NONE);
    v1::ForecastResponse response;
    const grpc::Status status = forecast(harness, request, &response);
    EXPECT_EQ(status.error_code(), bad.code) << bad.name << ": " << status.error_message();
    for (const auto& part : bad.message_parts) {
      EXPECT_NE(status.error_message().find(part), std::string::npos)
          << bad.name << ": " << status.error_message();
    }
  }
}

TEST(PredictionIntervals, AnUncalibratedModelSaysHowToCalibrate) {
  nlohmann::json config = bundled_config();
  config.erase("calibration");
  const std::string path = ::testing::TempDir() + "/uncalibrated_" + std::to_string(getpid()) + ".json";
  std::ofstream(path) << config.dump();
  ServerConfig server_config = test_config();
  server_config.model.model_config = path;
  ServerHarness harness(server_config);
  v1::ForecastRequest request = forecast_request(7, 336, 6);
  request.add_interval_levels(0.8);
  v1::ForecastResponse response;
  const grpc::Status status = forecast(harness, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << status.error_message();
  EXPECT_NE(status.error_message().find("tsserve-calibrate --model"), std::string::npos)
      << status.error_message();
  request.clear_interval_levels();  // the point forecast is still served
  EXPECT_TRUE(forecast(harness, request, &response).ok());
  std::remove(path.c_str());
}

// The Open Inference Protocol's "forecast_lower"/"forecast_upper" [L, B, F, N] hold, for each
// sample, the bands tsserve.v1 answers for that sample alone, bit for bit.
TEST(PredictionIntervals, OpenInferenceProtocolAnswersTheSameBandsAsExtraOutputs) {
  ServerHarness harness;
  const std::vector<v1::ForecastRequest> samples = {forecast_request(7, 336, 11),
                                                    forecast_request(7, 336, 12)};
  std::vector<float> data;  // [B, T, N]
  for (const auto& sample : samples) {
    for (int t = 0; t < 336; ++t) {
      for (int v = 0; v < 7; ++v) data.push_back(sample.series().values(v * 336 + t));
    }
  }
  inference::ModelInferRequest request = infer_request(2, 336, 7, data);
  request.set_model_name("patchtst-etth1");
  request.mutable_parameters()->erase("scaler_mode");
  set_string_parameter(&request, "interval_levels", "0.8,0.95");
  inference::ModelInferResponse response;
  grpc::ClientContext context;
  const grpc::Status status = harness.oip().ModelInfer(&context, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.outputs_size(), 3);
  EXPECT_EQ(response.outputs(1).name(), "forecast_lower");
  EXPECT_EQ(response.outputs(2).name(), "forecast_upper");
  EXPECT_EQ(output_shape(response, 1), (std::vector<int64_t>{2, 2, 96, 7}));
  EXPECT_EQ(response.parameters().at("interval_levels").string_param(), "0.8,0.95");
  const std::vector<float> lower = output_floats(response, 1);
  const std::vector<float> upper = output_floats(response, 2);
  for (size_t b = 0; b < samples.size(); ++b) {
    v1::ForecastRequest alone;
    alone.set_layout(v1::SERIES_LAYOUT_TIME_BY_VARIABLES);
    alone.mutable_series()->add_shape(336);
    alone.mutable_series()->add_shape(7);
    alone.mutable_series()->mutable_values()->Add(data.begin() + static_cast<long>(b) * 336 * 7,
                                                   data.begin() + static_cast<long>(b + 1) * 336 * 7);
    alone.add_interval_levels(0.8);
    alone.add_interval_levels(0.95);
    v1::ForecastResponse expected;
    ASSERT_TRUE(forecast(harness, alone, &expected).ok());
    for (int l = 0; l < 2; ++l) {
      const auto first = static_cast<long>((static_cast<size_t>(l) * 2 + b) * 96 * 7);
      EXPECT_EQ(std::vector<float>(lower.begin() + first, lower.begin() + first + 96 * 7),
                floats(expected.intervals(l).lower()))
          << "level " << l << " sample " << b;
      EXPECT_EQ(std::vector<float>(upper.begin() + first, upper.begin() + first + 96 * 7),
                floats(expected.intervals(l).upper()))
          << "level " << l << " sample " << b;
    }
  }
  set_string_parameter(&request, "interval_levels", "0.8,1.5");
  grpc::ClientContext refused_context;
  const grpc::Status refused = harness.oip().ModelInfer(&refused_context, request, &response);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(refused.error_message().find("parameters[\"interval_levels\"][1]"), std::string::npos)
      << refused.error_message();
}

}  // namespace
}  // namespace tsserve::server::testing
