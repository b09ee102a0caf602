// The bundled iTransformer served over gRPC on loopback: a forecast of ETTh1's first test
// window (the rows and dates the PyTorch reference used) through tsserve.v1 and the Open
// Inference Protocol is bitwise the in-process model's on the same kernels (the fused forward
// by default, the LibTorch module with --cpu-kernels torch), and within 1e-5 of the reference;
// answers stay bitwise the same alone or batched with samples of other N; attention maps
// [H, N', N'] name their tokens and are the module's within 1e-6 (the fused forward's own); bad
// input and mismatched family configs are refused by field or key.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <fstream>

#include "reference_fixture.h"
#include "server_harness.h"
#include "tsserve/model/cpu_kernels.h"
#include "tsserve/model/fused_itransformer.h"
#include "tsserve/model/itransformer_checkpoint.h"
#include "tsserve/model/standard_scaler.h"

namespace tsserve::server::testing {
namespace {

using std::chrono::seconds;
using tsserve::testing::load_reference_fixture;
using tsserve::testing::ReferenceFixture;

const std::string kCheckpoint =
    std::string(TSSERVE_SOURCE_DIR) + "/model/default/itransformer_etth1.pt";
const std::vector<std::string> kColumns = {"HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"};
const std::vector<std::string> kCalendar = {"HourOfDay", "DayOfWeek", "DayOfMonth", "DayOfYear"};

ServerConfig itransformer_config() {
  ServerConfig config = test_config();
  config.model.model = kCheckpoint;
  return config;
}

const ReferenceFixture& etth1_window() {
  static const ReferenceFixture fixture = load_reference_fixture("itransformer_bundled_case");
  return fixture;
}

model::ITransformer& reference_itransformer() {
  static model::ITransformer model = model::load_itransformer(kCheckpoint);
  return model;
}

std::vector<float> floats(const v1::Tensor& t) { return {t.values().begin(), t.values().end()}; }

std::vector<int64_t> window_timestamps() {
  const at::Tensor row = etth1_window().input("timestamps")[0].contiguous();
  return {row.data_ptr<int64_t>(), row.data_ptr<int64_t>() + row.numel()};
}

// ETTh1's first test window [T, N] (raw units) as a [N, T] request with names and times.
v1::ForecastRequest etth1_request() {
  const at::Tensor x = etth1_window().input("x")[0].t().contiguous();  // [N, T]
  v1::ForecastRequest request;
  request.mutable_series()->add_shape(x.size(0));
  request.mutable_series()->add_shape(x.size(1));
  for (int64_t i = 0; i < x.numel(); ++i)
    request.mutable_series()->add_values(x.data_ptr<float>()[i]);
  for (const auto& name : kColumns) request.add_variable_names(name);
  for (int64_t t : window_timestamps()) request.add_timestamps(t);
  return request;
}

at::Tensor series_of(const v1::ForecastRequest& request) {
  return torch::tensor(floats(request.series()))
      .view({request.series().shape(0), request.series().shape(1)});
}

// The in-process forecast [N, F] on the server's default kernels (the fused forward,
// model/fused_itransformer.h) or on the LibTorch module.
at::Tensor in_process_forecast(const at::Tensor& series, const std::vector<int64_t>& timestamps,
                               model::CpuKernels kernels) {
  if (kernels == model::CpuKernels::kTorch) {
    return reference_itransformer()->forecast_sample(series, timestamps).forecast;
  }
  static const model::FusedITransformer fused(*reference_itransformer());
  const int64_t T = reference_itransformer()->config().seq_len;
  const std::vector<int64_t> last(timestamps.end() - T, timestamps.end());
  return fused.forecast_samples(series.unsqueeze(0),
                                reference_itransformer()->calendar_rows(last).unsqueeze(0))[0];
}

// The in-process model's forecast [N, F] in raw units, with the scaler applied around it
// by the same arithmetic the server uses (standard_scaler.h), so the two agree to the bit.
std::vector<float> library_forecast(const v1::ForecastRequest& request, bool scaled,
                                    model::CpuKernels kernels = model::CpuKernels::kFused) {
  at::Tensor series = series_of(request);
  const auto& scaler = *reference_itransformer()->config().scaler;
  if (scaled) {
    for (int64_t v = 0; v < series.size(0); ++v) {
      const model::ScalerColumn column{scaler.mean[v], scaler.std[v]};
      for (int64_t t = 0; t < series.size(1); ++t) {
        series[v][t] = column.scale(series[v][t].item<float>());
      }
    }
  }
  std::vector<int64_t> timestamps(request.timestamps().begin(), request.timestamps().end());
  at::InferenceMode guard;
  const at::Tensor forecast = in_process_forecast(series, timestamps, kernels).contiguous();
  std::vector<float> out(forecast.data_ptr<float>(), forecast.data_ptr<float>() + forecast.numel());
  if (scaled) {
    const int64_t F = forecast.size(1);
    for (size_t i = 0; i < out.size(); ++i) {
      const auto v = static_cast<size_t>(i / static_cast<size_t>(F));
      out[i] =
          static_cast<float>(model::ScalerColumn{scaler.mean[v], scaler.std[v]}.unscale(out[i]));
    }
  }
  return out;
}

grpc::Status forecast(ServerHarness& harness, const v1::ForecastRequest& request,
                      v1::ForecastResponse* response) {
  grpc::ClientContext context;
  return harness.stub().Forecast(&context, request, response);
}

TEST(ITransformerService, Etth1ForecastEqualsTheLibraryBitwiseAndTheReference) {
  TSSERVE_SKIP_IF_FIXTURE_SKIPPED("itransformer_bundled_case");  // ETTh1's window
  ServerHarness harness(itransformer_config());
  v1::ForecastRequest request = etth1_request();
  request.set_scaler_mode(v1::SCALER_MODE_NONE);  // as the reference ran: raw rows in
  v1::ForecastResponse response;
  ASSERT_TRUE(forecast(harness, request, &response).ok());
  EXPECT_FALSE(response.scaler_applied());
  EXPECT_EQ(response.model_name(), "itransformer-etth1");
  EXPECT_EQ(
      std::vector<int64_t>(response.forecast().shape().begin(), response.forecast().shape().end()),
      (std::vector<int64_t>{7, 96}));
  EXPECT_EQ(floats(response.forecast()), library_forecast(request, false));
  // The independent PyTorch reference (tests/reference/itransformer_reference.py) on the
  // same rows and dates: [1, F, N].
  const at::Tensor expected = etth1_window().output("forecast")[0].t();
  const at::Tensor served = torch::tensor(floats(response.forecast())).view({7, 96});
  EXPECT_TRUE(tsserve::testing::matches_reference(served, expected, 1e-5));

  // The same series as [T, N]: the forecast comes back [F, N] with the same numbers.
  const at::Tensor transposed = series_of(request).t().contiguous();
  v1::ForecastRequest by_time = request;
  by_time.set_layout(v1::SERIES_LAYOUT_TIME_BY_VARIABLES);
  by_time.mutable_series()->clear_values();
  by_time.mutable_series()->set_shape(0, transposed.size(0));
  by_time.mutable_series()->set_shape(1, transposed.size(1));
  for (int64_t i = 0; i < transposed.numel(); ++i)
    by_time.mutable_series()->add_values(transposed.data_ptr<float>()[i]);
  v1::ForecastResponse time_first;
  ASSERT_TRUE(forecast(harness, by_time, &time_first).ok());
  const at::Tensor back =
      torch::tensor(floats(time_first.forecast())).view({96, 7}).t().contiguous();
  EXPECT_TRUE(at::equal(back, served));
}

TEST(ITransformerService, FusedKernelsServeWithin1e5OfTheModuleWhichTorchKernelsServeBitwise) {
  ServerHarness fused(itransformer_config());
  ServerConfig torch_config = itransformer_config();
  torch_config.model.cpu_kernels = "torch";
  ServerHarness torch_kernels(torch_config);
  for (ServerHarness* harness : {&fused, &torch_kernels}) {
    v1::GetModelInfoResponse info;
    grpc::ClientContext context;
    ASSERT_TRUE(harness->stub().GetModelInfo(&context, {}, &info).ok());
    const bool is_fused = harness == &fused;
    EXPECT_EQ(info.info().forward_kernels().rfind(is_fused ? "fused-" : "torch", 0), 0u)
        << info.info().forward_kernels();
    EXPECT_EQ(info.info().forward_fallback_reason(), "");
  }
  v1::ForecastRequest request = forecast_request(7, 96, 91);
  for (int64_t t = 0; t < 96; ++t) request.add_timestamps(1500000000 + 3600 * t);
  request.set_scaler_mode(v1::SCALER_MODE_NONE);
  v1::ForecastResponse from_fused, from_torch;
  ASSERT_TRUE(forecast(fused, request, &from_fused).ok());
  ASSERT_TRUE(forecast(torch_kernels, request, &from_torch).ok());
  const std::vector<float> module = library_forecast(request, false, model::CpuKernels::kTorch);
  EXPECT_EQ(floats(from_torch.forecast()), module);
  EXPECT_EQ(floats(from_fused.forecast()), library_forecast(request, false));
  const at::Tensor expected = torch::tensor(module);
  EXPECT_TRUE(tsserve::testing::matches_reference(torch::tensor(floats(from_fused.forecast())),
                                                  expected, 1e-5));
  // ...and not the module's answer itself, or this test would not tell the paths apart.
  EXPECT_NE(floats(from_fused.forecast()), module);
}

TEST(ITransformerService, TheScalerWrapsTheModelAsInTraining) {
  TSSERVE_SKIP_IF_FIXTURE_SKIPPED("itransformer_bundled_case");  // ETTh1's window
  ServerHarness harness(itransformer_config());
  const v1::ForecastRequest request = etth1_request();
  v1::ForecastResponse response;
  ASSERT_TRUE(forecast(harness, request, &response).ok());
  ASSERT_TRUE(response.scaler_applied());  // the names are the scaler's columns
  EXPECT_EQ(floats(response.forecast()), library_forecast(request, true));
}

TEST(ITransformerService, SamplesOfManyNShareBatchesAndEachEqualsItsAloneResult) {
  TSSERVE_SKIP_IF_FIXTURE_SKIPPED("itransformer_bundled_case");  // ETTh1's window
  // A config that takes any N, over the bundled weights: requests of N = 1..7 meet in
  // batches, grouped by N.
  const std::string config_path = ::testing::TempDir() + "itransformer_any_n.json";
  {
    std::ifstream in(std::string(TSSERVE_SOURCE_DIR) + "/model/default/itransformer_etth1.json");
    nlohmann::json json = nlohmann::json::parse(in);
    json["any_variable_count"] = true;
    std::ofstream(config_path) << json.dump();
  }
  ServerConfig config = itransformer_config();
  config.model.model_config = config_path;
  config.batching.max_queue_delay_ms = 200;  // long enough for the calls to meet
  ServerHarness harness(config);
  const v1::ForecastRequest full = etth1_request();
  constexpr int kCalls = 28;
  std::vector<v1::ForecastRequest> requests;
  for (int i = 0; i < kCalls; ++i) {
    const int n = 1 + i % 7;
    v1::ForecastRequest request = full;
    request.clear_variable_names();
    request.set_scaler_mode(v1::SCALER_MODE_NONE);
    request.mutable_series()->set_shape(0, n);
    request.mutable_series()->clear_values();
    for (int64_t k = 0; k < n * 96; ++k) {  // variables shifted by the call: all differ
      request.mutable_series()->add_values(full.series().values(static_cast<int>(k)) + 0.01f * i);
    }
    requests.push_back(std::move(request));
  }
  std::vector<v1::ForecastResponse> responses(kCalls);
  std::vector<grpc::ClientContext> contexts(kCalls);
  std::vector<grpc::Status> statuses(kCalls);
  CallCounter pending(kCalls);
  for (int i = 0; i < kCalls; ++i) {
    harness.stub().async()->Forecast(&contexts[i], &requests[i], &responses[i],
                                     [&, i](grpc::Status status) {
                                       statuses[i] = std::move(status);
                                       pending.done();
                                     });
  }
  ASSERT_TRUE(pending.wait(seconds(60)));
  int batched = 0;
  for (int i = 0; i < kCalls; ++i) {
    ASSERT_TRUE(statuses[i].ok()) << statuses[i].error_message();
    batched += responses[i].timing().batch_rows() > requests[i].series().shape(0) ? 1 : 0;
    v1::ForecastResponse alone;
    ASSERT_TRUE(forecast(harness, requests[i], &alone).ok());
    EXPECT_EQ(floats(responses[i].forecast()), floats(alone.forecast())) << "call " << i;
    EXPECT_EQ(floats(alone.forecast()), library_forecast(requests[i], false)) << "call " << i;
  }
  EXPECT_GT(batched, 0) << "no call shared a batch: the test proved nothing";
}

TEST(ITransformerService, AttentionMapsNameTheirTokensAndEqualTheModels) {
  TSSERVE_SKIP_IF_FIXTURE_SKIPPED("itransformer_bundled_case");  // ETTh1's window
  ServerHarness harness(itransformer_config());
  v1::ForecastRequest request = etth1_request();
  request.set_scaler_mode(v1::SCALER_MODE_NONE);
  request.mutable_attention()->set_enabled(true);
  request.mutable_attention()->add_layers(1);
  v1::ForecastResponse response;
  ASSERT_TRUE(forecast(harness, request, &response).ok());
  ASSERT_EQ(response.attention_size(), 1);
  const v1::AttentionMap& map = response.attention(0);
  EXPECT_EQ(map.layer(), 1);
  EXPECT_EQ(map.variable(), 0);
  std::vector<std::string> expected_names = kColumns;
  expected_names.insert(expected_names.end(), kCalendar.begin(), kCalendar.end());
  EXPECT_EQ(std::vector<std::string>(map.token_names().begin(), map.token_names().end()),
            expected_names);
  EXPECT_EQ(std::vector<int64_t>(map.weights().shape().begin(), map.weights().shape().end()),
            (std::vector<int64_t>{8, 11, 11}));
  at::InferenceMode guard;
  std::vector<int64_t> timestamps(request.timestamps().begin(), request.timestamps().end());
  const auto reference =
      reference_itransformer()->forecast_sample(series_of(request), timestamps, true);
  // The fused forward's own softmax weights: within 1e-6 of the LibTorch module's.
  EXPECT_TRUE(at::allclose(torch::tensor(floats(map.weights())).view({8, 11, 11}),
                           reference.attention[1], /*rtol=*/0, /*atol=*/1e-6));

  // Heads averaged, without names: tokens are known by index.
  request.clear_variable_names();
  request.mutable_attention()->set_average_heads(true);
  ASSERT_TRUE(forecast(harness, request, &response).ok());
  ASSERT_EQ(response.attention_size(), 1);
  EXPECT_EQ(response.attention(0).token_names(0), "0");
  EXPECT_EQ(response.attention(0).token_names(7), "HourOfDay");
  EXPECT_TRUE(at::allclose(torch::tensor(floats(response.attention(0).weights())).view({11, 11}),
                           reference.attention[1].mean(0), /*rtol=*/0, /*atol=*/1e-6));
}

TEST(ITransformerService, OipModelInferWithTimestampsEqualsV1) {
  TSSERVE_SKIP_IF_FIXTURE_SKIPPED("itransformer_bundled_case");  // ETTh1's window
  ServerHarness harness(itransformer_config());
  v1::ForecastRequest v1_request = etth1_request();
  v1_request.set_scaler_mode(v1::SCALER_MODE_NONE);
  v1::ForecastResponse v1_response;
  ASSERT_TRUE(forecast(harness, v1_request, &v1_response).ok());

  // Two samples [2, T, N]: the window twice, the second with times a year later.
  const at::Tensor by_time = series_of(v1_request).t().contiguous();
  inference::ModelInferRequest request;
  auto* series = request.add_inputs();
  series->set_name("series");
  series->set_datatype("FP32");
  for (int64_t d : {int64_t{2}, by_time.size(0), by_time.size(1)}) series->add_shape(d);
  auto* times = request.add_inputs();
  times->set_name("timestamps");
  times->set_datatype("INT64");
  times->add_shape(2);
  times->add_shape(by_time.size(0));
  for (int b = 0; b < 2; ++b) {
    for (int64_t i = 0; i < by_time.numel(); ++i)
      series->mutable_contents()->add_fp32_contents(by_time.data_ptr<float>()[i]);
    for (int64_t t : v1_request.timestamps())
      times->mutable_contents()->add_int64_contents(t + b * 364 * 86400);
  }
  (*request.mutable_parameters())["scaler_mode"].set_string_param("none");
  inference::ModelInferResponse response;
  grpc::ClientContext context;
  const grpc::Status status = harness.oip().ModelInfer(&context, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.outputs_size(), 1);
  const auto& values = response.outputs(0).contents().fp32_contents();
  ASSERT_EQ(values.size(), 2 * 96 * 7);
  // Sample 0 is v1's answer, [F, N]; sample 1 (other dates) differs.
  const at::Tensor answer =
      torch::tensor(std::vector<float>(values.begin(), values.end())).view({2, 96, 7});
  EXPECT_TRUE(at::equal(answer[0].t().contiguous(),
                        torch::tensor(floats(v1_response.forecast())).view({7, 96})));
  EXPECT_FALSE(at::equal(answer[0], answer[1]));

  // Without timestamps the calendar tokens cannot be made.
  request.mutable_inputs()->RemoveLast();
  grpc::ClientContext again;
  const grpc::Status missing = harness.oip().ModelInfer(&again, request, &response);
  EXPECT_EQ(missing.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(missing.error_message().find("\"timestamps\""), std::string::npos)
      << missing.error_message();
}

struct BadCase {
  const char* name;
  std::function<void(v1::ForecastRequest&)> spoil;
  const char* message_part;
};

TEST(ITransformerService, BadInputIsRefusedByFieldAndTheServerKeepsServing) {
  TSSERVE_SKIP_IF_FIXTURE_SKIPPED("itransformer_bundled_case");  // ETTh1's window
  ServerHarness harness(itransformer_config());
  const std::vector<BadCase> cases = {
      {"no timestamps", [](v1::ForecastRequest& r) { r.clear_timestamps(); },
       "timestamps: required by this iTransformer"},
      {"timestamps not increasing",
       [](v1::ForecastRequest& r) { r.set_timestamps(50, r.timestamps(49)); },
       "timestamps: entry 50"},
      {"too few timestamps", [](v1::ForecastRequest& r) { r.mutable_timestamps()->RemoveLast(); },
       "timestamps: 95 entries for 96 input points"},
      {"6 variables",
       [](v1::ForecastRequest& r) {
         r.clear_variable_names();
         r.mutable_series()->set_shape(0, 6);
         r.mutable_series()->mutable_values()->Truncate(6 * 96);
       },
       "series: 6 variables (N in [N, T_in], layout VARIABLES_BY_TIME); this iTransformer takes "
       "exactly enc_in = 7"},
      {"attention by variable",
       [](v1::ForecastRequest& r) {
         r.mutable_attention()->set_enabled(true);
         r.mutable_attention()->add_variables(0);
       },
       "attention.variables: must be empty for an iTransformer"},
  };
  for (const BadCase& bad : cases) {
    v1::ForecastRequest request = etth1_request();
    bad.spoil(request);
    v1::ForecastResponse response;
    const grpc::Status status = forecast(harness, request, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << bad.name;
    EXPECT_NE(status.error_message().find(bad.message_part), std::string::npos)
        << bad.name << ": " << status.error_message();
  }
  v1::ForecastResponse response;
  EXPECT_TRUE(forecast(harness, etth1_request(), &response).ok());
}

TEST(ITransformerService, ModelInfoAndMetadataDescribeTheTokenLayout) {
  ServerHarness harness(itransformer_config());
  v1::GetModelInfoResponse response;
  grpc::ClientContext context;
  ASSERT_TRUE(harness.stub().GetModelInfo(&context, {}, &response).ok());
  const v1::ModelInfo& info = response.info();
  EXPECT_EQ(info.family(), "iTransformer");
  EXPECT_EQ(info.enc_in(), 7);
  EXPECT_FALSE(info.any_variable_count());
  EXPECT_EQ(
      std::vector<std::string>(info.calendar_features().begin(), info.calendar_features().end()),
      kCalendar);
  EXPECT_EQ(info.attention_tokens(), 11);
  EXPECT_EQ(info.patch_count(), 0);
  EXPECT_EQ(info.seq_len(), 96);

  inference::ModelMetadataRequest request;
  inference::ModelMetadataResponse metadata;
  grpc::ClientContext oip_context;
  ASSERT_TRUE(harness.oip().ModelMetadata(&oip_context, request, &metadata).ok());
  ASSERT_EQ(metadata.inputs_size(), 2);
  EXPECT_EQ(
      std::vector<int64_t>(metadata.inputs(0).shape().begin(), metadata.inputs(0).shape().end()),
      (std::vector<int64_t>{-1, 96, 7}));
  EXPECT_EQ(metadata.inputs(1).name(), "timestamps");
  EXPECT_EQ(metadata.inputs(1).datatype(), "INT64");
  EXPECT_EQ(
      std::vector<int64_t>(metadata.outputs(1).shape().begin(), metadata.outputs(1).shape().end()),
      (std::vector<int64_t>{-1, 1, -1, -1, 11, 11}));
}

std::string start_error(const ServerConfig& config) {
  try {
    InferenceServer::start(config);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "started";
}

TEST(ITransformerServerStartup, AConfigOfTheOtherFamilyIsRefusedNamingTheKeyAndField) {
  const std::string defaults = std::string(TSSERVE_SOURCE_DIR) + "/model/default/";
  ServerConfig patchtst_config_on_itransformer = itransformer_config();
  patchtst_config_on_itransformer.model.model_config = defaults + "patchtst_etth1.json";
  const std::string first = start_error(patchtst_config_on_itransformer);
  EXPECT_NE(first.find("enc_embedding"), std::string::npos) << first;
  EXPECT_NE(first.find("\"model\""), std::string::npos) << first;

  ServerConfig itransformer_config_on_patchtst = test_config();
  itransformer_config_on_patchtst.model.model_config = defaults + "itransformer_etth1.json";
  const std::string second = start_error(itransformer_config_on_patchtst);
  EXPECT_NE(second.find("patch_embedding"), std::string::npos) << second;
  EXPECT_NE(second.find("\"model\""), std::string::npos) << second;
}

TEST(ITransformerServerStartup, AFixedNConfigWithoutEncInIsRefused) {
  const std::string config_path = ::testing::TempDir() + "itransformer_no_enc_in.json";
  {
    std::ifstream in(std::string(TSSERVE_SOURCE_DIR) + "/model/default/itransformer_etth1.json");
    nlohmann::json json = nlohmann::json::parse(in);
    json.erase("enc_in");
    std::ofstream(config_path) << json.dump();
  }
  ServerConfig config = itransformer_config();
  config.model.model_config = config_path;
  const std::string error = start_error(config);
  EXPECT_NE(error.find("'enc_in' must give the variables"), std::string::npos) << error;
  EXPECT_NE(error.find("any_variable_count"), std::string::npos) << error;
}

}  // namespace
}  // namespace tsserve::server::testing
