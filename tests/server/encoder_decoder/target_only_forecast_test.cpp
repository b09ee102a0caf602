// TSLib's features "MS" served: N variables in, the target alone out (the sample's last
// variable, as TSLib's loader puts the target last). Checkpoints and inputs from
// make_encdec_fixtures.py (the independent PyTorch reference): the served forecast is the
// reference's target column within the parity bar over tsserve.v1, the Open Inference
// Protocol and /v1 JSON; intervals use the target's calibration and scaler column; actuals
// of the target are scored and the others counted as unknown.

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "../oip_test_support.h"
#include "raw_http_client.h"
#include "reference_fixture.h"
#include "server_harness.h"

namespace tsserve::server::testing {
namespace {

using tsserve::testing::fixture_dir;
using tsserve::testing::load_reference_fixture;
using tsserve::testing::matches_reference;
using tsserve::testing::ReferenceFixture;

std::string checkpoint_of(const std::string& case_name) {
  return fixture_dir() + "/encdec/" + case_name + ".pt";
}

// Sample b of the fixture as a tsserve.v1 request: x_enc[b] as [N, T], the first T of its
// timestamps (the server continues them into the forecast's steps).
v1::ForecastRequest fixture_request(const ReferenceFixture& fixture, int64_t b) {
  const at::Tensor series = fixture.input("x_enc")[b].t().contiguous();  // [N, T]
  const at::Tensor stamps = fixture.input("timestamps")[b].contiguous();
  v1::ForecastRequest request;
  request.set_layout(v1::SERIES_LAYOUT_VARIABLES_BY_TIME);
  request.mutable_series()->add_shape(series.size(0));
  request.mutable_series()->add_shape(series.size(1));
  const float* values = series.data_ptr<float>();
  request.mutable_series()->mutable_values()->Add(values, values + series.numel());
  for (int64_t t = 0; t < series.size(1); ++t) request.add_timestamps(stamps[t].item<int64_t>());
  return request;
}

at::Tensor tensor_of(const v1::Tensor& tensor) {
  std::vector<int64_t> shape(tensor.shape().begin(), tensor.shape().end());
  return at::tensor(std::vector<float>(tensor.values().begin(), tensor.values().end())).view(shape);
}

ServerConfig serving(const std::string& case_name) {
  ServerConfig config = test_config();
  config.model.model = checkpoint_of(case_name);
  return config;
}

class TargetOnlyForecast : public ::testing::TestWithParam<std::string> {
 protected:
  ReferenceFixture fixture_ = load_reference_fixture("encdec_" + GetParam());
  ServerHarness harness_{serving(GetParam())};
};

TEST_P(TargetOnlyForecast, ModelInfoSaysTheForecastIsTheTarget) {
  grpc::ClientContext context;
  v1::GetModelInfoResponse response;
  ASSERT_TRUE(harness_.stub().GetModelInfo(&context, {}, &response).ok());
  EXPECT_EQ(response.info().features(), "MS");
}

TEST_P(TargetOnlyForecast, ServedForecastIsTheReferenceTargetInEitherLayout) {
  const at::Tensor served = fixture_.output("served");  // [B, 1, F]
  const int64_t N = fixture_.input("x_enc").size(2);
  const int64_t F = served.size(2);
  for (int64_t b = 0; b < served.size(0); ++b) {
    v1::ForecastRequest request = fixture_request(fixture_, b);
    const v1::ForecastResponse response = forecast_expecting_ok(harness_, request);
    ASSERT_EQ(std::vector<int64_t>(response.forecast().shape().begin(),
                                   response.forecast().shape().end()),
              (std::vector<int64_t>{1, F}));
    ASSERT_EQ(response.forecast_variables_size(), 1);
    EXPECT_EQ(response.forecast_variables(0), N - 1);
    EXPECT_TRUE(matches_reference(tensor_of(response.forecast()), served[b])) << "sample " << b;

    // [T, N] in, [F, 1] out: the same numbers.
    v1::ForecastRequest by_time = request;
    by_time.set_layout(v1::SERIES_LAYOUT_TIME_BY_VARIABLES);
    const at::Tensor rows = tensor_of(request.series()).t().contiguous();
    by_time.mutable_series()->set_shape(0, rows.size(0));
    by_time.mutable_series()->set_shape(1, rows.size(1));
    by_time.mutable_series()->mutable_values()->Assign(rows.data_ptr<float>(),
                                                       rows.data_ptr<float>() + rows.numel());
    const v1::ForecastResponse transposed = forecast_expecting_ok(harness_, by_time);
    EXPECT_EQ(transposed.forecast().shape(0), F);
    EXPECT_EQ(transposed.forecast().shape(1), 1);
    EXPECT_TRUE(at::equal(tensor_of(transposed.forecast()).view({F}),
                          tensor_of(response.forecast()).view({F})));
  }
}

TEST_P(TargetOnlyForecast, TheOpenInferenceProtocolAnswersBSamplesOfOneColumn) {
  const at::Tensor served = fixture_.output("served");            // [B, 1, F]
  const at::Tensor x_enc = fixture_.input("x_enc").contiguous();  // [B, T, N]
  const int64_t B = x_enc.size(0), T = x_enc.size(1), N = x_enc.size(2), F = served.size(2);
  inference::ModelInferRequest request = infer_request(
      B, T, N,
      std::vector<float>(x_enc.data_ptr<float>(), x_enc.data_ptr<float>() + x_enc.numel()));
  request.set_model_name("encdec-fixture");
  request.mutable_parameters()->erase("scaler_mode");
  auto* stamps = request.add_inputs();
  stamps->set_name("timestamps");
  stamps->set_datatype("INT64");
  stamps->add_shape(B);
  stamps->add_shape(T);
  const at::Tensor times = fixture_.input("timestamps").contiguous();
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t t = 0; t < T; ++t)
      stamps->mutable_contents()->add_int64_contents(times[b][t].item<int64_t>());
  }
  inference::ModelInferResponse response;
  grpc::ClientContext context;
  const grpc::Status status = harness_.oip().ModelInfer(&context, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(
      std::vector<int64_t>(response.outputs(0).shape().begin(), response.outputs(0).shape().end()),
      (std::vector<int64_t>{B, F, 1}));
  const std::vector<float> oip = output_floats(response, 0);
  ASSERT_EQ(static_cast<int64_t>(oip.size()), B * F);
  EXPECT_TRUE(matches_reference(at::tensor(oip).view({B, 1, F}), served));
}

INSTANTIATE_TEST_SUITE_P(InformerAndTransformer, TargetOnlyForecast,
                         ::testing::Values("inf_sampled_fixed_t_ms", "tr_timef_ms"));

// The untrained "MS" Informer over ETTh1's columns (its scaler), with a calibration of its
// target written here: levels 0.5 and 0.9, quantile 0.1 + 0.01 h and 0.2 + 0.02 h.
class CalibratedTarget : public ::testing::Test {
 protected:
  static constexpr int64_t kSteps = 24;
  static constexpr int64_t kPoints = 96;

  static std::string calibrated_config() {
    std::ifstream file(fixture_dir() + "/encdec/inf_etth1_ms.json");
    nlohmann::json config = nlohmann::json::parse(file);
    nlohmann::json quantiles = nlohmann::json::array();
    for (double base : {0.1, 0.2}) {
      nlohmann::json level = nlohmann::json::array();
      for (int64_t h = 0; h < kSteps; ++h) level.push_back({base + base / 10 * h});
      quantiles.push_back(level);
    }
    config["calibration"] = {{"dataset", "ETTh1.csv"}, {"split", "8640/2880/2880"},
                             {"rows", {8544, 11520}},  {"windows", 2833},
                             {"levels", {0.5, 0.9}},   {"quantiles", quantiles}};
    const std::string path =
        ::testing::TempDir() + "/inf_etth1_ms_calibrated_" + std::to_string(getpid()) + ".json";
    std::ofstream(path) << config.dump();
    return path;
  }

  static ServerConfig config() {
    ServerConfig config = serving("inf_etth1_ms");
    config.model.model_config = calibrated_config();
    return config;
  }

  // ETTh1's seven columns (OT last, the target) in `order`, hourly from 2018-01-01.
  static v1::ForecastRequest hourly_request(const std::vector<std::string>& order) {
    v1::ForecastRequest request = forecast_request(static_cast<int64_t>(order.size()), kPoints, 17);
    for (const std::string& name : order) request.add_variable_names(name);
    for (int64_t t = 0; t < kPoints; ++t) request.add_timestamps(1514764800 + 3600 * t);
    return request;
  }

  const std::vector<std::string> kColumns = {"HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"};
  ServerHarness harness_{config()};
};

TEST_F(CalibratedTarget, BandsAreTheTargetPlusMinusItsQuantileInItsUnits) {
  v1::ForecastRequest request = hourly_request(kColumns);
  request.add_interval_levels(0.9);
  const v1::ForecastResponse response = forecast_expecting_ok(harness_, request);
  ASSERT_TRUE(response.scaler_applied());
  ASSERT_EQ(response.intervals_size(), 1);
  const double ot_std = 9.176491024944383;  // the ETTh1 scaler's OT column
  ASSERT_EQ(response.forecast().values_size(), kSteps);
  for (int h = 0; h < kSteps; ++h) {
    const double forecast = response.forecast().values(h);
    const double q = (0.2 + 0.02 * h) * ot_std;
    EXPECT_NEAR(response.intervals(0).lower().values(h), forecast - q, 1e-5 * (1 + q)) << h;
    EXPECT_NEAR(response.intervals(0).upper().values(h), forecast + q, 1e-5 * (1 + q)) << h;
  }
}

TEST_F(CalibratedTarget, ATargetThatIsNotTheScalersLastColumnHasNoCalibratedIntervals) {
  std::vector<std::string> swapped = kColumns;
  std::swap(swapped.front(), swapped.back());  // OT first, HUFL last: HUFL becomes the target
  v1::ForecastRequest request = hourly_request(swapped);
  request.add_interval_levels(0.9);
  v1::ForecastResponse response;
  grpc::ClientContext context;
  const grpc::Status status = harness_.stub().Forecast(&context, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(status.error_message().find("interval_levels: this Informer (features MS) was "
                                        "calibrated on its target, the scaler's column 'OT'"),
            std::string::npos)
      << status.error_message();
}

TEST_F(CalibratedTarget, ActualsOfTheTargetAreScoredAndTheOthersCountedUnknown) {
  v1::ForecastRequest request = hourly_request(kColumns);
  request.set_series_key("transformer-ms");
  const v1::ForecastResponse forecast = forecast_expecting_ok(harness_, request);
  ASSERT_TRUE(forecast.forecast_stored()) << forecast.forecast_timestamps_note();
  v1::ReportActualsRequest report;
  report.set_series_key("transformer-ms");
  report.add_variable_names("OT");
  report.add_variable_names("HUFL");
  for (int k = 0; k < 2; ++k) {
    report.add_timestamps(forecast.forecast_timestamps(k));
    report.add_values(20.0 + k);
    report.add_values(5.0);
  }
  v1::ReportActualsResponse outcome;
  grpc::ClientContext context;
  ASSERT_TRUE(harness_.stub().ReportActuals(&context, report, &outcome).ok());
  EXPECT_EQ(outcome.matched(), 2);
  EXPECT_EQ(outcome.unmatched_unknown_variable(), 2);
}

TEST_F(CalibratedTarget, JsonAnswersWithTheTargetsColumnAlone) {
  const v1::ForecastRequest request = hourly_request(kColumns);
  const v1::ForecastResponse expected = forecast_expecting_ok(harness_, request);
  nlohmann::ordered_json series = nlohmann::ordered_json::object();
  for (int n = 0; n < request.variable_names_size(); ++n) {
    const float* begin = request.series().values().data() + n * kPoints;
    series[request.variable_names(n)] = std::vector<double>(begin, begin + kPoints);
  }
  const nlohmann::ordered_json body = {
      {"series", series},
      {"timestamps",
       std::vector<int64_t>(request.timestamps().begin(), request.timestamps().end())},
      {"intervals", {0.5}}};
  const tsserve::testing::HttpReply reply = tsserve::testing::http_call(
      harness_.server().http_port(), "POST", "/v1/models/encdec-fixture/versions/1/forecast",
      body.dump(), {{"Content-Type", "application/json"}});
  ASSERT_EQ(reply.status, 200) << reply.body.substr(0, 300);
  const nlohmann::json answer = nlohmann::json::parse(reply.body);
  ASSERT_EQ(answer["forecast"].size(), 1u) << answer["forecast"].dump().substr(0, 200);
  const std::vector<float> ot = answer["forecast"].at("OT").get<std::vector<float>>();
  EXPECT_EQ(ot, std::vector<float>(expected.forecast().values().begin(),
                                   expected.forecast().values().end()));
  EXPECT_EQ(answer["intervals"]["0.5"]["lower"].size(), 1u);
  EXPECT_TRUE(answer["intervals"]["0.5"]["lower"].contains("OT"));
}

}  // namespace
}  // namespace tsserve::server::testing
