// TimeXer served: a TSLib-style checkpoint ("MS", the target last, calendar tokens) from
// make_timexer_fixtures.py on loopback. The tsserve.v1 forecast is the reference's
// (TSLib's module) target within the parity bar, in either layout and over the Open
// Inference Protocol; GetModelInfo names the family and its "MS"; the attention maps
// (the target's patches' self-attention, its global token's attention over the named
// covariates) are the in-process fused forward's over tsserve.v1 and JSON, refused over
// the Open Inference Protocol with the reason, as Encode is.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../oip_test_support.h"
#include "raw_http_client.h"
#include "reference_fixture.h"
#include "server_harness.h"
#include "tsserve/model/fused_timexer.h"
#include "tsserve/model/timexer_checkpoint.h"

namespace tsserve::server::testing {
namespace {

using tsserve::testing::fixture_dir;
using tsserve::testing::load_reference_fixture;
using tsserve::testing::matches_reference;
using tsserve::testing::ReferenceFixture;

ServerConfig timexer_serving() {
  ServerConfig config = test_config();
  config.model.model = fixture_dir() + "/checkpoints/timexer.pt";
  return config;
}

// The fixture's one sample as a tsserve.v1 request: x [T, N] sent as [N, T], with its
// timestamps.
v1::ForecastRequest timexer_request(const ReferenceFixture& fixture) {
  const at::Tensor series = fixture.input("x")[0].t().contiguous();  // [N, T]
  const at::Tensor stamps = fixture.input("timestamps")[0].contiguous();
  v1::ForecastRequest request;
  request.set_layout(v1::SERIES_LAYOUT_VARIABLES_BY_TIME);
  request.mutable_series()->add_shape(series.size(0));
  request.mutable_series()->add_shape(series.size(1));
  const float* values = series.data_ptr<float>();
  request.mutable_series()->mutable_values()->Add(values, values + series.numel());
  for (int64_t t = 0; t < series.size(1); ++t) request.add_timestamps(stamps[t].item<int64_t>());
  return request;
}

at::Tensor values_of(const v1::Tensor& tensor) {
  std::vector<int64_t> shape(tensor.shape().begin(), tensor.shape().end());
  return at::tensor(std::vector<float>(tensor.values().begin(), tensor.values().end())).view(shape);
}

class TimeXerService : public ::testing::Test {
 protected:
  ReferenceFixture fixture_ = load_reference_fixture("timexer_checkpoint_case");
  ServerHarness harness_{timexer_serving()};
};

TEST_F(TimeXerService, ModelInfoNamesTheFamilyAndItsTargetOnlyForecast) {
  grpc::ClientContext context;
  v1::GetModelInfoResponse response;
  ASSERT_TRUE(harness_.stub().GetModelInfo(&context, {}, &response).ok());
  EXPECT_EQ(response.info().family(), "TimeXer");
  EXPECT_EQ(response.info().features(), "MS");
}

TEST_F(TimeXerService, ForecastIsTheReferenceTargetInEitherLayout) {
  const at::Tensor expected = fixture_.output("forecast")[0].t();  // [1, F]
  const int64_t N = fixture_.input("x").size(2);
  const int64_t F = expected.size(1);
  v1::ForecastRequest request = timexer_request(fixture_);
  const v1::ForecastResponse response = forecast_expecting_ok(harness_, request);
  ASSERT_EQ(
      std::vector<int64_t>(response.forecast().shape().begin(), response.forecast().shape().end()),
      (std::vector<int64_t>{1, F}));
  ASSERT_EQ(response.forecast_variables_size(), 1);
  EXPECT_EQ(response.forecast_variables(0), N - 1);  // the target: the last variable
  EXPECT_TRUE(matches_reference(values_of(response.forecast()), expected));

  v1::ForecastRequest by_time = request;  // [T, N] in, [F, 1] out: the same numbers
  by_time.set_layout(v1::SERIES_LAYOUT_TIME_BY_VARIABLES);
  const at::Tensor rows = values_of(request.series()).t().contiguous();
  by_time.mutable_series()->set_shape(0, rows.size(0));
  by_time.mutable_series()->set_shape(1, rows.size(1));
  by_time.mutable_series()->mutable_values()->Assign(rows.data_ptr<float>(),
                                                     rows.data_ptr<float>() + rows.numel());
  const v1::ForecastResponse transposed = forecast_expecting_ok(harness_, by_time);
  EXPECT_TRUE(at::equal(values_of(transposed.forecast()).view({F}),
                        values_of(response.forecast()).view({F})));
}

TEST_F(TimeXerService, TheOpenInferenceProtocolAnswersEachSampleAsAlone) {
  const at::Tensor x = fixture_.input("x").contiguous();  // [1, T, N]
  const int64_t T = x.size(1), N = x.size(2);
  const int64_t F = fixture_.output("forecast").size(1);
  const int64_t B = 3;  // the sample three times: each answer the reference's, bitwise equal
  std::vector<float> values;
  for (int64_t b = 0; b < B; ++b)
    values.insert(values.end(), x.data_ptr<float>(), x.data_ptr<float>() + x.numel());
  inference::ModelInferRequest request = infer_request(B, T, N, values);
  request.set_model_name("timexer-fixture");
  request.mutable_parameters()->erase("scaler_mode");
  auto* stamps = request.add_inputs();
  stamps->set_name("timestamps");
  stamps->set_datatype("INT64");
  stamps->add_shape(B);
  stamps->add_shape(T);
  const at::Tensor times = fixture_.input("timestamps")[0].contiguous();
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t t = 0; t < T; ++t)
      stamps->mutable_contents()->add_int64_contents(times[t].item<int64_t>());
  }
  inference::ModelInferResponse response;
  grpc::ClientContext context;
  const grpc::Status status = harness_.oip().ModelInfer(&context, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  const std::vector<float> oip = output_floats(response, 0);
  ASSERT_EQ(static_cast<int64_t>(oip.size()), B * F);
  const at::Tensor answers = at::tensor(oip).view({B, F, 1});
  for (int64_t b = 0; b < B; ++b) {
    EXPECT_TRUE(matches_reference(answers[b], fixture_.output("forecast")[0])) << b;
    EXPECT_TRUE(at::equal(answers[b], answers[0])) << b;
  }
}

// The served maps are the in-process fused forward's, bitwise: per layer, the target's
// patches' self-attention and its global token's attention over the covariates, named.
TEST_F(TimeXerService, MapsAreTheTargetsSelfAndCovariateAttentionWithNames) {
  v1::ForecastRequest request = timexer_request(fixture_);
  for (const char* name : {"HUFL", "HULL", "MUFL", "OT"}) request.add_variable_names(name);
  request.mutable_attention()->set_enabled(true);
  const v1::ForecastResponse response = forecast_expecting_ok(harness_, request);

  model::TimeXer module = model::load_timexer(fixture_dir() + "/checkpoints/timexer.pt");
  const model::FusedTimeXer fused(*module);
  const at::Tensor stamps = fixture_.input("timestamps")[0].contiguous();
  const int64_t* first = stamps.data_ptr<int64_t>();
  const at::Tensor calendar = module->calendar_rows({first, first + stamps.numel()}).unsqueeze(0);
  const int32_t layers = static_cast<int32_t>(module->config().e_layers);
  std::vector<int32_t> every;
  for (int32_t l = 0; l < layers; ++l) every.push_back(l);
  const model::TimeXerForecastWithMaps expected = fused.forecast_samples_with_maps(
      fixture_.input("x").transpose(1, 2).contiguous(), calendar, {{every, false}});

  ASSERT_EQ(response.attention_size(), 2 * layers);
  const std::vector<std::string> covariates = {"HUFL",      "HULL",       "MUFL",     "HourOfDay",
                                               "DayOfWeek", "DayOfMonth", "DayOfYear"};
  for (const v1::AttentionMap& map : response.attention()) {
    EXPECT_EQ(map.variable(), 3);  // OT, the target
    const at::Tensor weights = values_of(map.weights());
    if (map.stack() == "encoder") {
      EXPECT_TRUE(map.token_names().empty());
      EXPECT_TRUE(at::equal(weights, expected.self_maps[0][map.layer()][0])) << map.layer();
    } else {
      ASSERT_EQ(map.stack(), "covariates");
      EXPECT_EQ(std::vector<std::string>(map.token_names().begin(), map.token_names().end()),
                covariates);
      EXPECT_TRUE(at::equal(weights, expected.cross_maps[0][map.layer()].narrow(1, 0, 1)))
          << map.layer();
      EXPECT_NEAR(weights.sum().item<double>(), module->config().n_heads, 1e-5);
    }
  }
}

TEST_F(TimeXerService, JsonMapsNameTheTargetAndItsCovariates) {
  const at::Tensor x = fixture_.input("x")[0].t().contiguous();  // [N, T]
  nlohmann::ordered_json series = nlohmann::ordered_json::object();
  const std::vector<std::string> names = {"HUFL", "HULL", "MUFL", "OT"};
  for (int64_t n = 0; n < x.size(0); ++n) {
    const float* row = x[n].data_ptr<float>();
    series[names[static_cast<size_t>(n)]] = std::vector<double>(row, row + x.size(1));
  }
  std::vector<int64_t> stamps;
  const at::Tensor times = fixture_.input("timestamps")[0].contiguous();
  for (int64_t t = 0; t < times.numel(); ++t) stamps.push_back(times[t].item<int64_t>());
  const nlohmann::ordered_json body = {{"series", series},
                                       {"timestamps", stamps},
                                       {"attention", {{"layers", {1}}, {"average_heads", true}}}};
  const tsserve::testing::HttpReply reply = tsserve::testing::http_call(
      harness_.server().http_port(), "POST", "/v1/models/timexer-fixture/forecast", body.dump(),
      {{"Content-Type", "application/json"}});
  ASSERT_EQ(reply.status, 200) << reply.body;
  const nlohmann::json answer = nlohmann::json::parse(reply.body);
  ASSERT_EQ(answer["attention"].size(), 2u) << reply.body;
  const nlohmann::json& covariates = answer["attention"][1];
  EXPECT_EQ(covariates["stack"], "covariates");
  EXPECT_EQ(covariates["variable"], "OT");
  EXPECT_EQ(covariates["layer"], 1);
  EXPECT_EQ(covariates["token_names"][0], "HUFL");
  EXPECT_EQ(covariates["weights"].size(), 1u);     // one query: the global token
  EXPECT_EQ(covariates["weights"][0].size(), 7u);  // three covariates, four calendar features
  EXPECT_EQ(answer["attention"][0]["variable"], "OT");
}

TEST_F(TimeXerService, OipMapsAndEncodeAreRefusedWithTheReason) {
  const at::Tensor x = fixture_.input("x").contiguous();
  inference::ModelInferRequest request =
      infer_request(1, x.size(1), x.size(2),
                    std::vector<float>(x.data_ptr<float>(), x.data_ptr<float>() + x.numel()));
  request.set_model_name("timexer-fixture");
  request.add_outputs()->set_name("attention");
  inference::ModelInferResponse response;
  grpc::ClientContext context;
  const grpc::Status status = harness_.oip().ModelInfer(&context, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("ask tsserve.v1 Forecast"), std::string::npos)
      << status.error_message();

  v1::EncodeRequest encode;
  encode.mutable_tokens()->add_shape(1);
  encode.mutable_tokens()->add_shape(16);
  encode.mutable_tokens()->mutable_values()->Resize(16, 0.0f);
  v1::EncodeResponse encoded;
  grpc::ClientContext encode_context;
  const grpc::Status refused = harness_.stub().Encode(&encode_context, encode, &encoded);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(refused.error_message().find("covariate tokens"), std::string::npos)
      << refused.error_message();
}

}  // namespace
}  // namespace tsserve::server::testing
