// --cpu-kernels through the server: `fused` (the default) answers within 1e-5 of the
// LibTorch model and `torch` bit for bit; with either, every answer is bitwise the
// in-process forecaster's on the same kernels for its rows alone, whatever shares its
// batch and whether or not it asked for attention maps; Encode likewise on either kernels;
// GetModelInfo says which forward serves and why a fallback happened.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>

#include "server_harness.h"
#include "tsserve/model/patchtst_checkpoint.h"

namespace tsserve::server::testing {
namespace {

using std::chrono::seconds;

std::vector<float> forecast_of(const model::RowForecaster& forecaster,
                               const v1::ForecastRequest& request) {
  at::InferenceMode guard;
  const at::Tensor forecast = forecaster.forecast_rows(rows_of(request)).forecast;
  return {forecast.data_ptr<float>(), forecast.data_ptr<float>() + forecast.numel()};
}

v1::ModelInfo model_info(ServerHarness& harness) {
  v1::GetModelInfoResponse response;
  grpc::ClientContext context;
  EXPECT_TRUE(harness.stub().GetModelInfo(&context, {}, &response).ok());
  return response.info();
}

ServerConfig with_kernels(const std::string& kernels) {
  ServerConfig config = test_config();
  config.model.cpu_kernels = kernels;
  return config;
}

// The project's parity bar: 1e-5 relative to the output's scale (its largest magnitude).
void expect_within_parity(const std::vector<float>& got, const std::vector<float>& libtorch) {
  ASSERT_EQ(got.size(), libtorch.size());
  double scale = 0;
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    scale = std::max(scale, std::abs(double(libtorch[i])));
    worst = std::max(worst, std::abs(double(got[i]) - libtorch[i]));
  }
  EXPECT_LE(worst, 1e-5 * scale) << "scale " << scale;
}

TEST(CpuKernels, FusedServerIsWithin1e5OfTheLibTorchModel) {
  ServerHarness harness;  // the default kernels
  const v1::ModelInfo info = model_info(harness);
  EXPECT_EQ(info.forward_kernels().rfind("fused-", 0), 0u) << info.forward_kernels();
  EXPECT_EQ(info.forward_fallback_reason(), "");
  EXPECT_TRUE(info.batch_invariant());

  v1::ForecastRequest request = forecast_request(7, 336, 71);
  request.set_scaler_mode(v1::SCALER_MODE_NONE);
  const std::vector<float> got = floats(forecast_expecting_ok(harness, request).forecast());
  const std::vector<float> libtorch =
      forecast_of(reference_forecaster(model::CpuKernels::kTorch), request);
  expect_within_parity(got, libtorch);
  // ...and not the LibTorch answer itself, or this test would not tell the paths apart.
  EXPECT_NE(got, libtorch);
}

TEST(CpuKernels, TorchServerEqualsTheLibTorchModelBitForBit) {
  ServerHarness harness(with_kernels("torch"));
  const v1::ModelInfo info = model_info(harness);
  EXPECT_EQ(info.forward_kernels(), "torch");
  EXPECT_EQ(info.forward_fallback_reason(), "");

  v1::ForecastRequest request = forecast_request(7, 336, 72);
  request.set_scaler_mode(v1::SCALER_MODE_NONE);
  at::InferenceMode guard;
  const at::Tensor libtorch = reference_model()->forecast_rows(rows_of(request)).forecast;
  EXPECT_EQ(floats(forecast_expecting_ok(harness, request).forecast()),
            std::vector<float>(libtorch.data_ptr<float>(),
                               libtorch.data_ptr<float>() + libtorch.numel()));
}

TEST(CpuKernels, ProbSparseServesOnTheFusedKernelsWithin1e5OfTheLibTorchModel) {
  ServerConfig config = test_config();  // fused asked for
  config.model.attention = "prob";
  ServerHarness harness(config);
  const v1::ModelInfo info = model_info(harness);
  EXPECT_EQ(info.forward_kernels().rfind("fused-", 0), 0u) << info.forward_kernels();
  EXPECT_EQ(info.forward_fallback_reason(), "");

  v1::ForecastRequest request = forecast_request(7, 336, 73);
  request.set_scaler_mode(v1::SCALER_MODE_NONE);
  model::ModelConfig prob = model::load_model_config(model::config_path_for(config.model.model));
  prob.attention = model::AttentionKind::kProb;
  const model::RowForecaster libtorch(model::load_patchtst(config.model.model, prob),
                                      model::CpuKernels::kTorch);
  expect_within_parity(floats(forecast_expecting_ok(harness, request).forecast()),
                       forecast_of(libtorch, request));
}

// Encode of `tokens` [L, D] through the server: the output, and layer 0's per-head map.
std::pair<std::vector<float>, std::vector<float>> encoded_by(ServerHarness& harness,
                                                             const at::Tensor& tokens) {
  v1::EncodeRequest request;
  request.mutable_tokens()->add_shape(tokens.size(0));
  request.mutable_tokens()->add_shape(tokens.size(1));
  const at::Tensor flat = tokens.contiguous().view(-1);
  for (int64_t i = 0; i < flat.numel(); ++i)
    request.mutable_tokens()->add_values(flat[i].item<float>());
  request.mutable_attention()->set_enabled(true);
  request.mutable_attention()->add_layers(0);
  v1::EncodeResponse response;
  grpc::ClientContext context;
  const grpc::Status status = harness.stub().Encode(&context, request, &response);
  EXPECT_TRUE(status.ok()) << status.error_message();
  if (!status.ok() || response.attention_size() != 1) return {};
  return {floats(response.output()), floats(response.attention(0).weights())};
}

// Encode runs on the server's kernels too: the fused encoder within 1e-5 of LibTorch's
// (its maps within 1e-6), at a token count other than the model's patches; `torch` is
// LibTorch's bit for bit.
TEST(CpuKernels, EncodeOnTheFusedKernelsIsWithin1e5OfTheLibTorchEncoder) {
  torch::manual_seed(74);
  const at::Tensor tokens = torch::randn({29, reference_model()->config().d_model});
  at::InferenceMode guard;
  const model::EncoderOutput expected = reference_model()->encode(tokens.unsqueeze(0), {}, true);
  const at::Tensor expected_output = expected.output.contiguous();
  const std::vector<float> output(expected_output.data_ptr<float>(),
                                  expected_output.data_ptr<float>() + expected_output.numel());
  const at::Tensor map = expected.weights[0].contiguous();
  const std::vector<float> weights(map.data_ptr<float>(), map.data_ptr<float>() + map.numel());

  ServerHarness fused_harness;
  const auto [fused_output, fused_weights] = encoded_by(fused_harness, tokens);
  expect_within_parity(fused_output, output);
  EXPECT_NE(fused_output, output);  // else this would not tell the paths apart
  ASSERT_EQ(fused_weights.size(), weights.size());
  for (size_t i = 0; i < weights.size(); ++i) EXPECT_NEAR(fused_weights[i], weights[i], 1e-6) << i;

  ServerHarness torch_harness(with_kernels("torch"));
  const auto [torch_output, torch_weights] = encoded_by(torch_harness, tokens);
  EXPECT_EQ(torch_output, output);
  EXPECT_EQ(torch_weights, weights);
}

class EveryKernels : public ::testing::TestWithParam<model::CpuKernels> {};

// 48 calls of 1-7 variables in batches of whatever met in the queue, every fourth asking
// for attention maps: each forecast is bitwise its rows' forecast alone, on the server's
// kernels, and the maps are the LibTorch model's (within 1e-6 from the fused kernels).
TEST_P(EveryKernels, EachAnswerIsItsAloneAnswerWhateverItsBatchHolds) {
  ServerConfig config = with_kernels(model::to_string(GetParam()));
  config.batching.max_queue_delay_ms = 200;  // long enough for the calls to meet
  ServerHarness harness(config);
  constexpr int kCalls = 48;
  std::vector<v1::ForecastRequest> requests;
  for (int i = 0; i < kCalls; ++i) {
    requests.push_back(forecast_request(1 + i % 7, 336, 700 + i));
    requests.back().set_scaler_mode(v1::SCALER_MODE_NONE);
    if (i % 4 == 0) {
      requests.back().mutable_attention()->set_enabled(true);
      requests.back().mutable_attention()->add_layers(1);
    }
  }
  std::vector<v1::ForecastResponse> responses;
  std::vector<grpc::Status> statuses;
  ASSERT_TRUE(forecast_concurrently(harness, requests, responses, statuses, seconds(60)));
  int shared_batches = 0;
  for (int i = 0; i < kCalls; ++i) {
    ASSERT_TRUE(statuses[i].ok()) << statuses[i].error_message();
    const auto rows = requests[i].series().shape(0);
    shared_batches += responses[i].timing().batch_rows() > rows;
    EXPECT_EQ(floats(responses[i].forecast()),
              forecast_of(reference_forecaster(GetParam()), requests[i]))
        << "call " << i;
    if (i % 4 != 0) {
      EXPECT_EQ(responses[i].attention_size(), 0) << "call " << i;
      continue;
    }
    at::InferenceMode guard;
    const auto maps = reference_model()->forecast_rows(rows_of(requests[i]), true).attention;
    ASSERT_EQ(responses[i].attention_size(), rows) << "call " << i;
    for (int v = 0; v < rows; ++v) {
      const auto& map = responses[i].attention(v);
      const at::Tensor got = torch::tensor(floats(map.weights())).view({4, 42, 42});
      const at::Tensor& libtorch = maps[1][map.variable()];
      // The fused kernels' maps are their forward's own softmax weights: within 1e-6 of the
      // modules'; the modules' own are theirs bit for bit.
      EXPECT_TRUE(GetParam() == model::CpuKernels::kFused
                      ? at::allclose(got, libtorch, /*rtol=*/0, /*atol=*/1e-6)
                      : at::equal(got, libtorch))
          << "call " << i << " variable " << map.variable() << ": max difference "
          << (got - libtorch).abs().max().item<float>();
    }
  }
  EXPECT_GT(shared_batches, 0) << "no call shared its batch: the test proved nothing";
}

INSTANTIATE_TEST_SUITE_P(CpuKernels, EveryKernels,
                         ::testing::Values(model::CpuKernels::kFused, model::CpuKernels::kTorch),
                         [](const auto& info) { return model::to_string(info.param); });

}  // namespace
}  // namespace tsserve::server::testing
