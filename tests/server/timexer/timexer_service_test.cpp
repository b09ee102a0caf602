// TimeXer served: a TSLib-style checkpoint ("MS", the target last, calendar tokens) from
// make_timexer_fixtures.py on loopback. The tsserve.v1 forecast is the reference's
// (TSLib's module) target within the parity bar, in either layout and over the Open
// Inference Protocol; GetModelInfo names the family and its "MS"; attention maps and
// Encode are refused with the reason.

#include <gtest/gtest.h>

#include <vector>

#include "../oip_test_support.h"
#include "reference_fixture.h"
#include "server_harness.h"

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

TEST_F(TimeXerService, AttentionMapsAndEncodeAreRefusedWithTheReason) {
  v1::ForecastRequest request = timexer_request(fixture_);
  request.mutable_attention()->set_enabled(true);
  v1::ForecastResponse response;
  grpc::ClientContext context;
  const grpc::Status status = harness_.stub().Forecast(&context, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(status.error_message().find("attention: a TimeXer's attention maps"), std::string::npos)
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
