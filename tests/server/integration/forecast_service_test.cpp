// tsserve over gRPC on loopback: answers equal the library's bit for bit (on the same
// kernels), alone or batched with others; attention maps; bad input; queue limits, deadlines, drain and health.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "server/grpc/happens_before.h"
#include "server_harness.h"
#include "tsserve/model/intra_op_threads.h"
#include "tsserve/model/normalisation_limit.h"

namespace tsserve::server::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// The library's forecast for the request's rows, unscaled (scaler_mode NONE), on the
// kernels the test server runs (the default, fused; cpu_kernels_test.cpp covers both).
std::vector<float> library_forecast(const v1::ForecastRequest& request) {
  at::InferenceMode guard;
  const at::Tensor forecast =
      reference_forecaster(model::CpuKernels::kFused).forecast_rows(rows_of(request)).forecast;
  return {forecast.data_ptr<float>(), forecast.data_ptr<float>() + forecast.numel()};
}

TEST(ForecastService, AnswerEqualsTheLibraryBitForBit) {
  ServerHarness harness;
  v1::ForecastRequest request = forecast_request(3, 336, 1);
  request.set_scaler_mode(v1::SCALER_MODE_NONE);
  v1::ForecastResponse response;
  grpc::ClientContext context;
  ASSERT_TRUE(harness.stub().Forecast(&context, request, &response).ok());
  EXPECT_EQ(response.forecast().shape(0), 3);
  EXPECT_EQ(response.forecast().shape(1), 96);
  EXPECT_EQ(floats(response.forecast()), library_forecast(request));
  EXPECT_EQ(response.model_name(), "patchtst-etth1");
  EXPECT_FALSE(response.scaler_applied());
  EXPECT_EQ(response.input_points_used(), 336);
}

// A regression test: 336 values of 3e38 were once answered OK with a forecast that was
// not a number.
// Series at the normalisation's line (constant, and alternating, which maximises the
// variance) are answered with finite numbers by the real model; just past it, or the
// reported series, are refused naming the variable and the line.
TEST(ForecastService, SeriesAtTheNormalisationLineAreAnsweredFiniteAndPastItRefused) {
  ServerHarness harness;
  const float limit = model::largest_normalisable_magnitude(336);
  auto series = [](float a, float b) {
    v1::ForecastRequest request;
    request.mutable_series()->add_shape(2);
    request.mutable_series()->add_shape(336);
    for (int t = 0; t < 336; ++t) request.mutable_series()->add_values(a);
    for (int t = 0; t < 336; ++t) request.mutable_series()->add_values(t % 2 == 0 ? a : b);
    request.set_scaler_mode(v1::SCALER_MODE_NONE);
    return request;
  };
  for (const v1::ForecastRequest& request : {series(limit, -limit), series(-limit, limit)}) {
    v1::ForecastResponse response;
    grpc::ClientContext context;
    const grpc::Status status = harness.stub().Forecast(&context, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    for (float value : response.forecast().values()) ASSERT_TRUE(std::isfinite(value)) << value;
  }
  const float past = std::nextafter(limit, INFINITY);
  v1::ForecastRequest refused = series(limit, -past);
  refused.add_variable_names("flat");
  refused.add_variable_names("zigzag");
  v1::ForecastResponse response;
  grpc::ClientContext context;
  grpc::Status status = harness.stub().Forecast(&context, refused, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("series: value at [1, 1] (variable \"zigzag\")"),
            std::string::npos)
      << status.error_message();
  EXPECT_NE(status.error_message().find("takes magnitudes up to 1.77e+17"), std::string::npos)
      << status.error_message();
  grpc::ClientContext reported_context;
  status = harness.stub().Forecast(&reported_context, series(3e38f, 3e38f), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
}

TEST(ForecastService, ScalerWrapsTheModelLikeTraining) {
  ServerHarness harness;
  const v1::ForecastRequest request = forecast_request(7, 400, 2);  // 7 = scaler columns
  v1::ForecastResponse response;
  grpc::ClientContext context;
  ASSERT_TRUE(harness.stub().Forecast(&context, request, &response).ok());
  ASSERT_TRUE(response.scaler_applied());
  EXPECT_EQ(response.input_points_used(), 336);

  const auto& scaler = *reference_model()->config().scaler;
  const auto& values = request.series().values();
  at::Tensor rows = torch::empty({7, 336});
  for (int v = 0; v < 7; ++v) {
    for (int t = 0; t < 336; ++t) {  // the last 336 of 400 points
      rows[v][t] = static_cast<float>((double(values[v * 400 + 64 + t]) - scaler.mean[v]) /
                                      scaler.std[v]);
    }
  }
  at::InferenceMode guard;
  const at::Tensor forecast =
      reference_forecaster(model::CpuKernels::kFused).forecast_rows(rows).forecast;
  for (int v = 0; v < 7; ++v) {
    for (int h = 0; h < 96; ++h) {
      const float expected =
          static_cast<float>(double(forecast[v][h].item<float>()) * scaler.std[v] + scaler.mean[v]);
      ASSERT_EQ(response.forecast().values(v * 96 + h), expected) << "variable " << v;
    }
  }
}

TEST(ForecastService, ConcurrentRequestsShareBatchesAndEachEqualsItsAloneResult) {
  ServerConfig config = test_config();
  config.batching.max_queue_delay_ms = 200;  // long enough for the 64 calls to meet
  ServerHarness harness(config);
  constexpr int kCalls = 64;
  std::vector<v1::ForecastRequest> requests;
  for (int i = 0; i < kCalls; ++i) {
    requests.push_back(forecast_request(1 + i % 7, 336, 100 + i));
    requests.back().set_scaler_mode(v1::SCALER_MODE_NONE);
  }
  std::vector<v1::ForecastResponse> responses;
  std::vector<grpc::Status> statuses;
  ASSERT_TRUE(forecast_concurrently(harness, requests, responses, statuses, seconds(60)));
  for (int i = 0; i < kCalls; ++i) {
    ASSERT_TRUE(statuses[i].ok()) << statuses[i].error_message();
    EXPECT_EQ(floats(responses[i].forecast()), library_forecast(requests[i])) << "call " << i;
  }
  const std::string metrics = harness.scrape();
  const std::optional<double> batches = metric_total(metrics, "tsserve_batch_rows_count");
  ASSERT_TRUE(batches.has_value()) << "no tsserve_batch_rows_count in the scrape";
  EXPECT_GE(batches, 1);
  EXPECT_LT(batches, kCalls);
  int rows = 0;
  for (const auto& r : requests) rows += static_cast<int>(r.series().shape(0));
  EXPECT_EQ(metric_total(metrics, "tsserve_inference_rows_total"), rows);
}

TEST(ForecastService, AttentionMapsHaveTheirShapesAndTheModelsValues) {
  ServerHarness harness;
  v1::ForecastRequest request = forecast_request(3, 336, 3);
  request.set_scaler_mode(v1::SCALER_MODE_NONE);
  request.mutable_attention()->set_enabled(true);
  request.mutable_attention()->add_layers(2);
  request.mutable_attention()->add_layers(0);
  request.mutable_attention()->add_variables(1);
  v1::ForecastResponse per_head;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(harness.stub().Forecast(&context, request, &per_head).ok());
  }
  request.mutable_attention()->set_average_heads(true);
  v1::ForecastResponse averaged;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(harness.stub().Forecast(&context, request, &averaged).ok());
  }
  at::InferenceMode guard;
  const auto reference = reference_model()->forecast_rows(rows_of(request), true);
  ASSERT_EQ(per_head.attention_size(), 2);
  ASSERT_EQ(averaged.attention_size(), 2);
  const int layers[] = {0, 2};  // the response orders maps by variable, then layer
  for (int i = 0; i < 2; ++i) {
    const auto& map = per_head.attention(i);
    EXPECT_EQ(map.layer(), layers[i]);
    EXPECT_EQ(map.variable(), 1);
    EXPECT_FALSE(map.heads_averaged());
    const at::Tensor expected = reference.attention[static_cast<size_t>(layers[i])][1];  // [H,P,P]
    EXPECT_EQ(std::vector<int64_t>(map.weights().shape().begin(), map.weights().shape().end()),
              (std::vector<int64_t>{4, 42, 42}));
    // The fused kernels' own softmax weights: within 1e-6 of the LibTorch model's.
    EXPECT_TRUE(at::allclose(torch::tensor(floats(map.weights())).view({4, 42, 42}), expected,
                             /*rtol=*/0, /*atol=*/1e-6));
    const auto& mean_map = averaged.attention(i);
    EXPECT_TRUE(mean_map.heads_averaged());
    EXPECT_TRUE(at::allclose(torch::tensor(floats(mean_map.weights())).view({42, 42}),
                             expected.mean(0), /*rtol=*/0, /*atol=*/1e-6));
  }
  // Asking for maps does not move the forecast.
  EXPECT_EQ(floats(per_head.forecast()), library_forecast(request));
}

struct BadCase {
  const char* name;
  std::function<void(v1::ForecastRequest&)> spoil;
  grpc::StatusCode code;
  const char* message_part;
};

TEST(ForecastService, BadInputIsRefusedByFieldAndTheServerKeepsServing) {
  ServerConfig config = test_config();
  config.batching.max_batch_rows = 16;
  ServerHarness harness(config);
  const std::vector<BadCase> cases = {
      {"empty", [](auto& r) { r.clear_series(); }, grpc::StatusCode::INVALID_ARGUMENT, "series"},
      {"ragged", [](auto& r) { r.mutable_series()->mutable_values()->RemoveLast(); },
       grpc::StatusCode::INVALID_ARGUMENT, "series"},
      {"nan", [](auto& r) { r.mutable_series()->set_values(5, std::nanf("")); },
       grpc::StatusCode::INVALID_ARGUMENT, "NaN"},
      {"too few points", [](auto& r) { r = forecast_request(2, 100, 9); },
       grpc::StatusCode::INVALID_ARGUMENT, "336"},
      {"too many variables", [](auto& r) { r = forecast_request(17, 336, 9); },
       grpc::StatusCode::INVALID_ARGUMENT, "16"},
      {"unknown model", [](auto& r) { r.set_model("nope"); }, grpc::StatusCode::NOT_FOUND, "nope"},
      {"bad layer", [](auto& r) {
         r.mutable_attention()->set_enabled(true);
         r.mutable_attention()->add_layers(3);
       }, grpc::StatusCode::INVALID_ARGUMENT, "attention.layers"},
  };
  for (const auto& bad : cases) {
    v1::ForecastRequest request = forecast_request(2, 336, 8);
    bad.spoil(request);
    v1::ForecastResponse response;
    grpc::ClientContext context;
    const grpc::Status status = harness.stub().Forecast(&context, request, &response);
    EXPECT_EQ(status.error_code(), bad.code) << bad.name << ": " << status.error_message();
    EXPECT_NE(status.error_message().find(bad.message_part), std::string::npos)
        << bad.name << ": " << status.error_message();
  }
  v1::EncodeRequest encode;
  encode.mutable_tokens()->add_shape(4);
  encode.mutable_tokens()->add_shape(15);
  for (int i = 0; i < 60; ++i) encode.mutable_tokens()->add_values(0.5f);
  v1::EncodeResponse encoded;
  grpc::ClientContext encode_context;
  const grpc::Status width = harness.stub().Encode(&encode_context, encode, &encoded);
  EXPECT_EQ(width.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(width.error_message().find("16"), std::string::npos) << width.error_message();

  v1::ForecastResponse response;
  grpc::ClientContext context;
  EXPECT_TRUE(harness.stub().Forecast(&context, forecast_request(2, 336, 8), &response).ok());
}

// On the kernels the test server runs (the fused ones; cpu_kernels_test.cpp compares them
// with the LibTorch encoder).
TEST(ForecastService, EncodeEqualsTheLibraryEncoder) {
  ServerHarness harness;
  v1::EncodeRequest request;
  request.mutable_tokens()->add_shape(10);
  request.mutable_tokens()->add_shape(16);
  torch::manual_seed(4);
  const at::Tensor tokens = torch::randn({10, 16});
  for (int64_t i = 0; i < tokens.numel(); ++i) request.mutable_tokens()->add_values(tokens.view(-1)[i].item<float>());
  v1::EncodeResponse response;
  grpc::ClientContext context;
  ASSERT_TRUE(harness.stub().Encode(&context, request, &response).ok());
  at::InferenceMode guard;
  const model::FusedPatchTST* fused = reference_forecaster(model::CpuKernels::kFused).fused_model();
  ASSERT_NE(fused, nullptr);
  const at::Tensor expected = fused->encode(tokens.unsqueeze(0), false).output[0];
  EXPECT_TRUE(at::equal(torch::tensor(floats(response.output())).view({10, 16}), expected));
}

grpc::health::v1::HealthCheckResponse::ServingStatus health_of(ServerHarness& harness,
                                                               const std::string& service) {
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(service);
  grpc::health::v1::HealthCheckResponse response;
  grpc::ClientContext context;
  const grpc::Status status = harness.health().Check(&context, request, &response);
  return status.ok() ? response.status() : grpc::health::v1::HealthCheckResponse::UNKNOWN;
}

TEST(ForecastService, FullQueueShedsAndDrainLosesNothingAdmitted) {
  ServerConfig config = test_config();
  config.batching.max_batch_rows = 8;
  config.batching.max_queue_rows = 8;
  config.batching.max_queue_delay_ms = 3.6e6;  // an hour: tasks wait until drained
  ServerHarness harness(config);
  EXPECT_EQ(health_of(harness, ""), grpc::health::v1::HealthCheckResponse::SERVING);
  EXPECT_EQ(health_of(harness, "tsserve.v1.ForecastService"),
            grpc::health::v1::HealthCheckResponse::SERVING);
  // A Watch stream sees the transition the drain makes.
  grpc::ClientContext watch_context;
  grpc::health::v1::HealthCheckRequest watch_request;
  watch_request.set_service("tsserve.v1.ForecastService");
  auto watch = harness.health().Watch(&watch_context, watch_request);
  grpc::health::v1::HealthCheckResponse update;
  ASSERT_TRUE(watch->Read(&update));
  EXPECT_EQ(update.status(), grpc::health::v1::HealthCheckResponse::SERVING);

  // 4 + 5 rows cannot both queue within 8: exactly one is shed, whichever came second.
  std::vector<v1::ForecastRequest> requests = {forecast_request(4, 336, 11), forecast_request(5, 336, 12)};
  std::vector<v1::ForecastResponse> responses(2);
  std::vector<grpc::ClientContext> contexts(2);
  std::vector<grpc::Status> statuses(2);
  CallCounter shed(1);
  CallCounter all(2);
  for (int i = 0; i < 2; ++i) {
    requests[i].set_scaler_mode(v1::SCALER_MODE_NONE);
    // The callback runs on a gRPC thread after the call starts (happens_before.h).
    happens_before(&statuses);
    harness.stub().async()->Forecast(&contexts[i], &requests[i], &responses[i],
                                     [&, i](grpc::Status status) {
                                       happens_after(&statuses);
                                       statuses[i] = std::move(status);
                                       if (statuses[i].error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) shed.done();
                                       all.done();
                                     });
  }
  ASSERT_TRUE(shed.wait(seconds(30)));

  std::thread reader([&] {
    // The stream ends when the server stops; its last update must be NOT_SERVING.
    while (watch->Read(&update)) {
    }
  });
  EXPECT_TRUE(harness.server().shutdown(milliseconds(10000)));
  reader.join();
  EXPECT_EQ(update.status(), grpc::health::v1::HealthCheckResponse::NOT_SERVING);
  ASSERT_TRUE(all.wait(seconds(30)));
  const int admitted = statuses[0].ok() ? 0 : 1;
  EXPECT_EQ(statuses[1 - admitted].error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(statuses[1 - admitted].error_message().find("queue is full"), std::string::npos);
  ASSERT_TRUE(statuses[admitted].ok()) << statuses[admitted].error_message();
  EXPECT_EQ(floats(responses[admitted].forecast()), library_forecast(requests[admitted]));

  v1::ForecastResponse late;
  grpc::ClientContext late_context;
  EXPECT_EQ(harness.stub().Forecast(&late_context, requests[0], &late).error_code(),
            grpc::StatusCode::UNAVAILABLE);
}

// The drain's bound end to end (the cut itself, with a batch held running, is
// tests/server/bounded_drain_test.cpp): a drain with no time left cuts what is queued or
// lets its one batch run, whichever wins the race, and says which. Either way every call
// is answered, a cut one UNAVAILABLE with the reason, the return value (main's exit code)
// is false exactly when one was cut, and the drain does not outlast the timeout by more
// than the grace.
TEST(ForecastService, ADrainAtItsTimeoutAnswersEveryQueuedCallAndSaysWhetherItCutAny) {
  ServerConfig config = test_config();
  config.batching.max_batch_rows = 16;
  config.batching.max_queue_delay_ms = 3.6e6;  // an hour: the calls stay queued
  ServerHarness harness(config);
  constexpr int kCalls = 4;
  std::vector<v1::ForecastRequest> requests;
  for (int i = 0; i < kCalls; ++i) requests.push_back(forecast_request(1, 336, 40 + i));
  std::vector<v1::ForecastResponse> responses(kCalls);
  std::vector<grpc::ClientContext> contexts(kCalls);
  std::vector<grpc::Status> statuses(kCalls);
  CallCounter all(kCalls);
  for (int i = 0; i < kCalls; ++i) {
    happens_before(&statuses);
    harness.stub().async()->Forecast(&contexts[i], &requests[i], &responses[i],
                                     [&, i](grpc::Status status) {
                                       happens_after(&statuses);
                                       statuses[i] = std::move(status);
                                       all.done();
                                     });
  }
  ASSERT_TRUE(metric_reaches(harness, "tsserve_inflight_requests", kCalls));  // queued

  const auto start = std::chrono::steady_clock::now();
  const bool drained = harness.server().shutdown(milliseconds(0));
  EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(5));
  ASSERT_TRUE(all.wait(seconds(30)));
  int cut = 0;
  for (int i = 0; i < kCalls; ++i) {
    if (statuses[i].ok()) continue;
    ++cut;
    EXPECT_EQ(statuses[i].error_code(), grpc::StatusCode::UNAVAILABLE);
    EXPECT_EQ(statuses[i].error_message(),
              "draining: the drain timeout of 0 s passed before this call ran; retry on another "
              "replica");
  }
  EXPECT_TRUE(cut == 0 || cut == kCalls) << cut << " cut: they were queued as one batch";
  EXPECT_EQ(drained, cut == 0);
}

TEST(ForecastService, ExpiredRequestsAreDroppedBeforeCompute) {
  ServerConfig config = test_config();
  config.batching.max_batch_rows = 8;
  config.batching.max_queue_delay_ms = 3.6e6;
  ServerHarness harness(config);
  v1::ForecastRequest expiring = forecast_request(1, 336, 21);
  v1::ForecastResponse expiring_response;
  grpc::ClientContext expiring_context;
  expiring_context.set_deadline(std::chrono::system_clock::now() + milliseconds(300));
  grpc::Status expiring_status;
  CallCounter expired(1);
  harness.stub().async()->Forecast(&expiring_context, &expiring, &expiring_response,
                                   [&](grpc::Status status) {
                                     expiring_status = std::move(status);
                                     expired.done();
                                   });
  ASSERT_TRUE(expired.wait(seconds(30)));
  EXPECT_EQ(expiring_status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  // The server learns of the expiry on its own clock, a transit time after the client.
  ASSERT_TRUE(metric_reaches(
      harness,
      "tsserve_requests_total{code=\"DEADLINE_EXCEEDED\",method=\"Forecast\",protocol=\"v1\"}", 1));

  // 8 more rows close the batch at once; the expired task is dropped, not computed.
  v1::ForecastResponse response;
  grpc::ClientContext context;
  ASSERT_TRUE(harness.stub().Forecast(&context, forecast_request(8, 336, 22), &response).ok());
  const std::string metrics = harness.scrape();
  EXPECT_EQ(metric_total(metrics, "tsserve_inference_rows_total"), 8);
  EXPECT_EQ(
      metric_total(
          metrics,
          "tsserve_requests_total{code=\"DEADLINE_EXCEEDED\",method=\"Forecast\",protocol=\"v1\"}"),
      1)
      << metrics;
}

TEST(ForecastService, CancelledCallsEndAtOnceAndAreNotComputed) {
  ServerConfig config = test_config();
  config.batching.max_batch_rows = 8;
  config.batching.max_queue_delay_ms = 3.6e6;
  ServerHarness harness(config);
  v1::ForecastRequest request = forecast_request(1, 336, 31);
  v1::ForecastResponse response;
  grpc::ClientContext context;
  grpc::Status status;
  CallCounter finished(1);
  harness.stub().async()->Forecast(&context, &request, &response, [&](grpc::Status s) {
    status = std::move(s);
    finished.done();
  });
  ASSERT_TRUE(metric_reaches(harness, "tsserve_inflight_requests", 1));  // queued
  context.TryCancel();
  ASSERT_TRUE(finished.wait(seconds(30)));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::CANCELLED);
  ASSERT_TRUE(metric_reaches(
      harness, "tsserve_requests_total{code=\"CANCELLED\",method=\"Forecast\",protocol=\"v1\"}",
      1));
  EXPECT_EQ(metric_value(harness.scrape(), "tsserve_inflight_requests"), 0);

  // 8 more rows close a batch at once; the cancelled task is dropped, not computed.
  v1::ForecastResponse filler;
  grpc::ClientContext filler_context;
  ASSERT_TRUE(harness.stub().Forecast(&filler_context, forecast_request(8, 336, 32), &filler).ok());
  EXPECT_EQ(metric_total(harness.scrape(), "tsserve_inference_rows_total"), 8);
}

TEST(ForecastService, ModelInfoDescribesTheServedModel) {
  ServerHarness harness;
  v1::GetModelInfoResponse response;
  grpc::ClientContext context;
  ASSERT_TRUE(harness.stub().GetModelInfo(&context, {}, &response).ok());
  const auto& info = response.info();
  EXPECT_EQ(info.name(), "patchtst-etth1");
  EXPECT_EQ(info.seq_len(), 336);
  EXPECT_EQ(info.pred_len(), 96);
  EXPECT_EQ(info.patch_count(), 42);
  EXPECT_EQ(info.device(), "cpu");
  EXPECT_EQ(info.scaler_columns_size(), 7);
  EXPECT_TRUE(info.batch_invariant());
}

}  // namespace
}  // namespace tsserve::server::testing

namespace tsserve::server::testing {
namespace {

TEST(ServerStartup, CudaWithoutCudaFailsClearly) {
  if (torch::cuda::is_available()) GTEST_SKIP() << "this LibTorch sees a GPU";
  ServerConfig config = test_config();
  config.model.device = "cuda";
  try {
    InferenceServer::start(config);
    FAIL() << "started on cuda without CUDA";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("no CUDA support"), std::string::npos) << e.what();
  }
}

// One intra-op thread means one in OpenBLAS too: its own pool (a thread per core) left
// as it was, two batcher instances calling sgemm at once stall each other for hundreds of
// milliseconds (intra_op_threads.h).
TEST(ServerStartup, TheIntraOpThreadsSizeOpenBlassPoolToo) {
  if (!model::blas_pool_threads()) GTEST_SKIP() << "the process's BLAS is not OpenBLAS";
  if (std::getenv("OPENBLAS_NUM_THREADS") || std::getenv("GOTO_NUM_THREADS"))
    GTEST_SKIP() << "the environment sizes OpenBLAS's pool, which the server then keeps";
  model::set_intra_op_threads(2);
  ASSERT_EQ(model::blas_pool_threads(), 2);
  ServerHarness harness;  // test_config(): 1 intra-op thread
  EXPECT_EQ(model::blas_pool_threads(), 1);
  EXPECT_EQ(at::get_num_threads(), 1);
}

TEST(ServerStartup, ABadCheckpointIsRefusedWithItsKey) {
  ServerConfig config = test_config();
  config.model.attention = "full";
  config.model.model_config = std::string(TSSERVE_SOURCE_DIR) + "/tests/server/integration/wrong_width.json";
  try {
    InferenceServer::start(config);
    FAIL() << "served a checkpoint that contradicts its config";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("patch_embedding.value_embedding.weight"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tsserve::server::testing
