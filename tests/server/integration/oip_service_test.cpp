// The Open Inference Protocol (KServe v2) over gRPC on loopback, next to tsserve.v1 on the
// same port: readiness and metadata, ModelInfer equal to tsserve.v1's Forecast bit for
// bit (typed and raw), both protocols sharing one batch, attention on request, bad
// requests, and the RPCs it does not serve.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <functional>

#include "../oip_test_support.h"
#include "server_harness.h"
#include "tsserve/model/normalisation_limit.h"

namespace tsserve::server::testing {
namespace {

using std::chrono::seconds;

// [B, T_in, N] from `samples` v1 requests' [N, T_in] series (seeded random walks),
// transposed into time-major samples.
std::vector<float> batch_of(const std::vector<v1::ForecastRequest>& samples) {
  std::vector<float> data;
  for (const v1::ForecastRequest& sample : samples) {
    const int64_t n = sample.series().shape(0);
    const int64_t t = sample.series().shape(1);
    for (int64_t step = 0; step < t; ++step) {
      for (int64_t v = 0; v < n; ++v)
        data.push_back(sample.series().values(static_cast<int>(v * t + step)));
    }
  }
  return data;
}

// ModelInfer for the bundled model: B samples of N variables, T_in points each, the
// scaler on auto.
inference::ModelInferRequest infer(const std::vector<float>& data, int64_t samples, int64_t points,
                                   int64_t variables, bool raw) {
  inference::ModelInferRequest request = infer_request(samples, points, variables, data, raw);
  request.set_model_name("patchtst-etth1");
  request.mutable_parameters()->erase("scaler_mode");
  return request;
}

// tsserve.v1's answer for `request` sent as [T, N] (the layout of one OIP sample).
v1::ForecastResponse v1_forecast_by_time(ServerHarness& harness, v1::ForecastRequest request) {
  const int64_t n = request.series().shape(0);
  const int64_t t = request.series().shape(1);
  const std::vector<float> by_time = batch_of({request});
  request.mutable_series()->clear_shape();
  request.mutable_series()->add_shape(t);
  request.mutable_series()->add_shape(n);
  request.mutable_series()->mutable_values()->Clear();
  request.mutable_series()->mutable_values()->Add(by_time.begin(), by_time.end());
  request.set_layout(v1::SERIES_LAYOUT_TIME_BY_VARIABLES);
  v1::ForecastResponse response;
  grpc::ClientContext context;
  EXPECT_TRUE(harness.stub().Forecast(&context, request, &response).ok());
  return response;
}

TEST(OipService, ReadinessAndMetadataDescribeTheServedModel) {
  ServerHarness harness;
  {
    inference::ServerLiveResponse live;
    grpc::ClientContext context;
    ASSERT_TRUE(harness.oip().ServerLive(&context, {}, &live).ok());
    EXPECT_TRUE(live.live());
  }
  {
    inference::ServerReadyResponse ready;
    grpc::ClientContext context;
    ASSERT_TRUE(harness.oip().ServerReady(&context, {}, &ready).ok());
    EXPECT_TRUE(ready.ready());
  }
  {
    inference::ModelReadyRequest request;
    request.set_name("patchtst-etth1");
    inference::ModelReadyResponse ready;
    grpc::ClientContext context;
    ASSERT_TRUE(harness.oip().ModelReady(&context, request, &ready).ok());
    EXPECT_TRUE(ready.ready());
    request.set_version("99");
    grpc::ClientContext wrong_version;
    const grpc::Status status = harness.oip().ModelReady(&wrong_version, request, &ready);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
    EXPECT_NE(
        status.error_message().find("version: model \"patchtst-etth1\" has no ready version 99"),
        std::string::npos)
        << status.error_message();
  }
  {
    inference::ServerMetadataResponse metadata;
    grpc::ClientContext context;
    ASSERT_TRUE(harness.oip().ServerMetadata(&context, {}, &metadata).ok());
    EXPECT_EQ(metadata.name(), "tsserve");
    EXPECT_FALSE(metadata.version().empty());
    // RepositoryModelLoad/Unload are served: exactly the model_repository extension.
    ASSERT_EQ(metadata.extensions_size(), 1);
    EXPECT_EQ(metadata.extensions(0), "model_repository");
  }
  {
    inference::ModelMetadataRequest request;
    request.set_name("patchtst-etth1");
    inference::ModelMetadataResponse metadata;
    grpc::ClientContext context;
    ASSERT_TRUE(harness.oip().ModelMetadata(&context, request, &metadata).ok());
    EXPECT_EQ(metadata.name(), "patchtst-etth1");
    ASSERT_EQ(metadata.inputs_size(), 2);  // series, and the optional timestamps
    EXPECT_EQ(metadata.inputs(0).name(), "series");
    EXPECT_EQ(
        std::vector<int64_t>(metadata.inputs(0).shape().begin(), metadata.inputs(0).shape().end()),
        (std::vector<int64_t>{-1, 336, -1}));
    // forecast, attention, and the calibrated model's forecast_lower and forecast_upper.
    ASSERT_EQ(metadata.outputs_size(), 4);
    EXPECT_EQ(metadata.outputs(2).name(), "forecast_lower");
    EXPECT_EQ(std::vector<int64_t>(metadata.outputs(3).shape().begin(),
                                   metadata.outputs(3).shape().end()),
              (std::vector<int64_t>{-1, -1, 96, -1}));
    EXPECT_EQ(std::vector<int64_t>(metadata.outputs(0).shape().begin(),
                                   metadata.outputs(0).shape().end()),
              (std::vector<int64_t>{-1, 96, -1}));
    EXPECT_EQ(std::vector<int64_t>(metadata.outputs(1).shape().begin(),
                                   metadata.outputs(1).shape().end()),
              (std::vector<int64_t>{-1, -1, -1, -1, 42, 42}));
    request.set_name("nope");
    grpc::ClientContext unknown;
    EXPECT_EQ(harness.oip().ModelMetadata(&unknown, request, &metadata).error_code(),
              grpc::StatusCode::NOT_FOUND);
  }
  grpc::health::v1::HealthCheckRequest check;
  check.set_service("inference.GRPCInferenceService");
  grpc::health::v1::HealthCheckResponse health;
  grpc::ClientContext context;
  ASSERT_TRUE(harness.health().Check(&context, check, &health).ok());
  EXPECT_EQ(health.status(), grpc::health::v1::HealthCheckResponse::SERVING);
}

TEST(OipService, ModelInferEqualsV1ForecastTypedAndRaw) {
  ServerHarness harness;
  // 7 variables: the scaler applies (auto, by position) in both protocols.
  const v1::ForecastRequest sample = forecast_request(7, 400, 5);
  const v1::ForecastResponse expected = v1_forecast_by_time(harness, sample);
  ASSERT_TRUE(expected.scaler_applied());
  const std::vector<float> want(expected.forecast().values().begin(),
                                expected.forecast().values().end());  // [F, N]
  for (bool raw : {false, true}) {
    SCOPED_TRACE(raw ? "raw_input_contents" : "fp32_contents");
    inference::ModelInferRequest request = infer(batch_of({sample}), 1, 400, 7, raw);
    request.set_id("typed-or-raw");
    inference::ModelInferResponse response;
    grpc::ClientContext context;
    const grpc::Status status = harness.oip().ModelInfer(&context, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(response.model_name(), "patchtst-etth1");
    EXPECT_EQ(response.id(), "typed-or-raw");
    EXPECT_TRUE(response.parameters().at("scaler_applied").bool_param());
    ASSERT_EQ(response.outputs_size(), 1);  // no attention unless asked
    EXPECT_EQ(response.raw_output_contents_size(), raw ? 1 : 0);
    EXPECT_EQ(response.outputs(0).name(), "forecast");
    EXPECT_EQ(output_shape(response, 0), (std::vector<int64_t>{1, 96, 7}));
    EXPECT_EQ(output_floats(response, 0), want);
  }
}

TEST(OipService, OipAndV1RequestsShareABatchAndEachEqualsItsAloneResult) {
  ServerConfig config = test_config();
  // The batch closes when it holds 7 rows, 3 from tsserve.v1 and 4 from ModelInfer; it
  // cannot close on time first (an hour), so both answers came from one forward pass.
  config.batching.max_batch_rows = 7;
  config.batching.max_queue_delay_ms = 3.6e6;
  ServerHarness harness(config);

  v1::ForecastRequest v1_request = forecast_request(3, 336, 41);
  v1_request.set_scaler_mode(v1::SCALER_MODE_NONE);
  const std::vector<v1::ForecastRequest> samples = {forecast_request(2, 336, 42),
                                                    forecast_request(2, 336, 43)};
  inference::ModelInferRequest oip_request = infer(batch_of(samples), 2, 336, 2, true);
  (*oip_request.mutable_parameters())["scaler_mode"].set_string_param("none");

  v1::ForecastResponse v1_response;
  inference::ModelInferResponse oip_response;
  grpc::ClientContext v1_context;
  grpc::ClientContext oip_context;
  grpc::Status v1_status;
  grpc::Status oip_status;
  CallCounter finished(2);
  harness.stub().async()->Forecast(&v1_context, &v1_request, &v1_response, [&](grpc::Status s) {
    v1_status = std::move(s);
    finished.done();
  });
  harness.oip().async()->ModelInfer(&oip_context, &oip_request, &oip_response, [&](grpc::Status s) {
    oip_status = std::move(s);
    finished.done();
  });
  ASSERT_TRUE(finished.wait(seconds(60)));
  ASSERT_TRUE(v1_status.ok()) << v1_status.error_message();
  ASSERT_TRUE(oip_status.ok()) << oip_status.error_message();
  EXPECT_EQ(v1_response.timing().batch_rows(), 7);
  EXPECT_EQ(oip_response.parameters().at("batch_rows").int64_param(), 7);
  const std::string metrics = harness.scrape();
  EXPECT_EQ(metric_total(metrics, "tsserve_batch_rows_count"), 1);
  EXPECT_EQ(
      metric_total(metrics,
                   "tsserve_requests_total{code=\"OK\",method=\"ModelInfer\",protocol=\"oip\"}"),
      1);
  EXPECT_EQ(metric_total(metrics,
                         "tsserve_requests_total{code=\"OK\",method=\"Forecast\",protocol=\"v1\"}"),
            1);

  // Each answer is bitwise the library's for its own rows alone.
  at::InferenceMode guard;
  auto alone = [](const v1::ForecastRequest& r) {
    const auto& s = r.series();
    std::vector<float> data(s.values().begin(), s.values().end());
    return reference_forecaster(model::CpuKernels::kFused)
        .forecast_rows(torch::tensor(data).view({s.shape(0), s.shape(1)}))
        .forecast;
  };
  const at::Tensor v1_alone = alone(v1_request);
  EXPECT_EQ(std::vector<float>(v1_response.forecast().values().begin(),
                               v1_response.forecast().values().end()),
            std::vector<float>(v1_alone.data_ptr<float>(),
                               v1_alone.data_ptr<float>() + v1_alone.numel()));
  ASSERT_EQ(output_shape(oip_response, 0), (std::vector<int64_t>{2, 96, 2}));
  const std::vector<float> got = output_floats(oip_response, 0);
  for (int b = 0; b < 2; ++b) {
    const at::Tensor expected =
        alone(samples[static_cast<std::size_t>(b)]).t().contiguous();  // [F, N]
    EXPECT_EQ(std::vector<float>(got.begin() + b * 192, got.begin() + (b + 1) * 192),
              std::vector<float>(expected.data_ptr<float>(), expected.data_ptr<float>() + 192))
        << "sample " << b;
  }
}

TEST(OipService, AttentionComesOnlyWhenRequestedAndEqualsV1Maps) {
  ServerHarness harness;
  v1::ForecastRequest sample = forecast_request(3, 336, 51);
  sample.set_scaler_mode(v1::SCALER_MODE_NONE);
  sample.mutable_attention()->set_enabled(true);
  sample.mutable_attention()->add_layers(1);
  sample.mutable_attention()->add_variables(2);
  v1::ForecastResponse v1_response;
  grpc::ClientContext v1_context;
  ASSERT_TRUE(harness.stub().Forecast(&v1_context, sample, &v1_response).ok());
  ASSERT_EQ(v1_response.attention_size(), 1);

  inference::ModelInferRequest request = infer(batch_of({sample}), 1, 336, 3, false);
  auto& parameters = *request.mutable_parameters();
  parameters["scaler_mode"].set_string_param("none");
  parameters["attention_layers"].set_int64_param(1);
  parameters["attention_variables"].set_string_param("2");
  request.add_outputs()->set_name("forecast");
  request.add_outputs()->set_name("attention");
  inference::ModelInferResponse response;
  grpc::ClientContext context;
  const grpc::Status status = harness.oip().ModelInfer(&context, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.outputs_size(), 2);
  EXPECT_EQ(response.outputs(1).name(), "attention");
  EXPECT_EQ(output_shape(response, 1), (std::vector<int64_t>{1, 1, 1, 4, 42, 42}));
  const auto& map = v1_response.attention(0).weights();
  EXPECT_EQ(output_floats(response, 1),
            std::vector<float>(map.values().begin(), map.values().end()));
}

// Extreme magnitudes over the Open Inference Protocol (forecast_service_test.cpp has the
// same for tsserve.v1): samples at the normalisation's line get a finite forecast from the
// real model; a sample just past it is refused in OIP's names.
TEST(OipService, SamplesAtTheNormalisationLineAreAnsweredFiniteAndPastItRefused) {
  ServerHarness harness;
  const float limit = model::largest_normalisable_magnitude(336);
  std::vector<float> data;  // [B = 2, T = 336, N = 1]: constant, then alternating
  for (int t = 0; t < 336; ++t) data.push_back(-limit);
  for (int t = 0; t < 336; ++t) data.push_back(t % 2 == 0 ? limit : -limit);
  inference::ModelInferRequest request = infer(data, 2, 336, 1, true);
  set_string_parameter(&request, "scaler_mode", "none");
  inference::ModelInferResponse response;
  grpc::ClientContext context;
  const grpc::Status status = harness.oip().ModelInfer(&context, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  for (float value : output_floats(response, 0)) ASSERT_TRUE(std::isfinite(value)) << value;

  data[336 + 5] = std::nextafter(limit, INFINITY);
  request = infer(data, 2, 336, 1, false);
  set_string_parameter(&request, "scaler_mode", "none");
  grpc::ClientContext refused_context;
  const grpc::Status refused = harness.oip().ModelInfer(&refused_context, request, &response);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(refused.error_message().find(
                "inputs[0] (\"series\"): value at [1, 5, 0] (variable 0) is 1.77e+17"),
            std::string::npos)
      << refused.error_message();
  EXPECT_NE(refused.error_message().find("takes magnitudes up to 1.77e+17"), std::string::npos)
      << refused.error_message();
}

TEST(OipService, BadRequestsAreRefusedByFieldAndTheServerKeepsServing) {
  ServerHarness harness;
  const std::vector<float> data = batch_of({forecast_request(2, 336, 61)});
  struct BadCase {
    const char* name;
    std::function<void(inference::ModelInferRequest&)> spoil;
    grpc::StatusCode code;
    const char* message_part;
  };
  const std::vector<BadCase> cases = {
      {"datatype", [](auto& r) { r.mutable_inputs(0)->set_datatype("INT64"); },
       grpc::StatusCode::INVALID_ARGUMENT, "datatype: \"INT64\"; the model takes FP32"},
      {"shape", [](auto& r) { r.mutable_inputs(0)->mutable_shape()->RemoveLast(); },
       grpc::StatusCode::INVALID_ARGUMENT, "expected 3 dimensions [B, T, N], got 2"},
      {"raw length", [](auto& r) { r.mutable_raw_input_contents(0)->resize(100); },
       grpc::StatusCode::INVALID_ARGUMENT, "raw_input_contents[0]: 100 bytes"},
      {"unknown input", [](auto& r) { r.mutable_inputs(0)->set_name("x"); },
       grpc::StatusCode::INVALID_ARGUMENT, "unknown input \"x\""},
      {"unknown model", [](auto& r) { r.set_model_name("nope"); }, grpc::StatusCode::NOT_FOUND,
       "model_name: model \"nope\" is not served; served: patchtst-etth1 (versions 1)"},
      {"unknown version", [](auto& r) { r.set_model_version("3"); }, grpc::StatusCode::NOT_FOUND,
       "model_version"},
  };
  for (const BadCase& bad : cases) {
    inference::ModelInferRequest request = infer(data, 1, 336, 2, true);
    bad.spoil(request);
    inference::ModelInferResponse response;
    grpc::ClientContext context;
    const grpc::Status status = harness.oip().ModelInfer(&context, request, &response);
    EXPECT_EQ(status.error_code(), bad.code) << bad.name << ": " << status.error_message();
    EXPECT_NE(status.error_message().find(bad.message_part), std::string::npos)
        << bad.name << ": " << status.error_message();
  }
  inference::ModelInferResponse response;
  grpc::ClientContext context;
  EXPECT_TRUE(harness.oip().ModelInfer(&context, infer(data, 1, 336, 2, true), &response).ok());
  const std::string metrics = harness.scrape();
  EXPECT_EQ(metric_total(metrics,
                         "tsserve_requests_total{code=\"INVALID_ARGUMENT\",method="
                         "\"ModelInfer\",protocol=\"oip\"}"),
            4);
  EXPECT_EQ(metric_total(metrics,
                         "tsserve_requests_total{code=\"NOT_FOUND\",method="
                         "\"ModelInfer\",protocol=\"oip\"}"),
            2);
}

TEST(OipService, ExpiredModelInferIsDroppedBeforeCompute) {
  ServerConfig config = test_config();
  config.batching.max_batch_rows = 8;
  config.batching.max_queue_delay_ms = 3.6e6;
  ServerHarness harness(config);
  const inference::ModelInferRequest expiring =
      infer(batch_of({forecast_request(1, 336, 71)}), 1, 336, 1, false);
  inference::ModelInferResponse expiring_response;
  grpc::ClientContext expiring_context;
  expiring_context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(300));
  grpc::Status expiring_status;
  CallCounter expired(1);
  harness.oip().async()->ModelInfer(&expiring_context, &expiring, &expiring_response,
                                    [&](grpc::Status status) {
                                      expiring_status = std::move(status);
                                      expired.done();
                                    });
  ASSERT_TRUE(expired.wait(seconds(30)));
  EXPECT_EQ(expiring_status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  ASSERT_TRUE(metric_reaches(harness,
                             "tsserve_requests_total{code=\"DEADLINE_EXCEEDED\",method="
                             "\"ModelInfer\",protocol=\"oip\"}",
                             1));
  // 8 rows close the batch at once; the expired task is dropped, not computed.
  inference::ModelInferResponse response;
  grpc::ClientContext context;
  ASSERT_TRUE(harness.oip()
                  .ModelInfer(&context,
                              infer(batch_of({forecast_request(8, 336, 72)}), 1, 336, 8, true),
                              &response)
                  .ok());
  EXPECT_EQ(metric_total(harness.scrape(), "tsserve_inference_rows_total"), 8);
}

// The single --model is a repository of one: unloaded by name it is no longer found, and
// loaded by name it serves again.
TEST(OipService, RepositoryUnloadAndLoadTakeTheModelOutAndBack) {
  ServerHarness harness;
  auto model_ready = [&] {
    inference::ModelReadyRequest request;
    request.set_name("patchtst-etth1");
    inference::ModelReadyResponse response;
    grpc::ClientContext context;
    return harness.oip().ModelReady(&context, request, &response);
  };
  inference::RepositoryModelUnloadRequest unload;
  unload.set_model_name("patchtst-etth1");
  inference::RepositoryModelUnloadResponse unloaded;
  grpc::ClientContext unload_context;
  ASSERT_TRUE(harness.oip().RepositoryModelUnload(&unload_context, unload, &unloaded).ok());
  EXPECT_TRUE(unloaded.isunloaded());
  EXPECT_EQ(model_ready().error_code(), grpc::StatusCode::NOT_FOUND);
  grpc::ClientContext again;
  EXPECT_EQ(harness.oip().RepositoryModelUnload(&again, unload, &unloaded).error_code(),
            grpc::StatusCode::NOT_FOUND);

  inference::RepositoryModelLoadRequest load;
  load.set_model_name("patchtst-etth1");
  inference::RepositoryModelLoadResponse loaded;
  grpc::ClientContext load_context;
  ASSERT_TRUE(harness.oip().RepositoryModelLoad(&load_context, load, &loaded).ok());
  EXPECT_TRUE(loaded.isloaded());
  EXPECT_TRUE(model_ready().ok());
  load.set_model_name("absent");
  grpc::ClientContext absent_context;
  const grpc::Status absent = harness.oip().RepositoryModelLoad(&absent_context, load, &loaded);
  EXPECT_EQ(absent.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(absent.error_message().find("\"absent\" is not in the repository"), std::string::npos)
      << absent.error_message();
}

}  // namespace
}  // namespace tsserve::server::testing
