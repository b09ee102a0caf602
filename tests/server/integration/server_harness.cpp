#include "server_harness.h"

#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <thread>

#include "tsserve/model/patchtst_checkpoint.h"

namespace tsserve::server::testing {

ServerConfig test_config() {
  ServerConfig config;
  config.server.grpc_address = "127.0.0.1:0";
  config.server.metrics_address = "127.0.0.1:0";
  config.server.http_address = "127.0.0.1:0";
  config.server.drain_timeout_s = 10;
  config.model.instances = 1;
  config.model.threads = 1;
  config.logging.log_level = "warn";
  return config;
}

ServerHarness::ServerHarness(const ServerConfig& config)
    : server_(InferenceServer::start(config)),
      channel_(grpc::CreateChannel("127.0.0.1:" + std::to_string(server_->grpc_port()),
                                   grpc::InsecureChannelCredentials())),
      stub_(v1::ForecastService::NewStub(channel_)),
      oip_(inference::GRPCInferenceService::NewStub(channel_)),
      health_(grpc::health::v1::Health::NewStub(channel_)) {}

std::string ServerHarness::scrape() const { return http_get(server_->metrics_port(), "/metrics"); }

bool forecast_concurrently(ServerHarness& harness, const std::vector<v1::ForecastRequest>& requests,
                           std::vector<v1::ForecastResponse>& responses,
                           std::vector<grpc::Status>& statuses, std::chrono::seconds limit) {
  const std::size_t calls = requests.size();
  responses.assign(calls, {});
  statuses.assign(calls, {});
  // The callbacks hold the contexts: after a timed-out wait a late call still has its own.
  auto contexts = std::make_shared<std::vector<grpc::ClientContext>>(calls);
  auto pending = std::make_shared<CallCounter>(static_cast<int>(calls));
  for (std::size_t i = 0; i < calls; ++i) {
    harness.stub().async()->Forecast(&(*contexts)[i], &requests[i], &responses[i],
                                     [&statuses, pending, contexts, i](grpc::Status status) {
                                       statuses[i] = std::move(status);
                                       pending->done();
                                     });
  }
  return pending->wait(limit);
}

bool metric_reaches(ServerHarness& harness, const std::string& series, double value) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < give_up) {
    if (metric_total(harness.scrape(), series) == value) return true;
    // A pause between scrapes: polling the server's own event, bounded; not a core spun.
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

model::PatchTST& reference_model() {
  static model::PatchTST model =
      model::load_patchtst(std::string(TSSERVE_SOURCE_DIR) + "/model/default/patchtst_etth1.pt");
  return model;
}

std::vector<float> floats(const v1::Tensor& t) { return {t.values().begin(), t.values().end()}; }

at::Tensor rows_of(const v1::ForecastRequest& request) {
  const auto& series = request.series();
  std::vector<float> data(series.values().begin(), series.values().end());
  return torch::tensor(data).view({series.shape(0), series.shape(1)});
}

const model::RowForecaster& reference_forecaster(model::CpuKernels kernels) {
  static const model::RowForecaster fused(reference_model(), model::CpuKernels::kFused);
  static const model::RowForecaster torch(reference_model(), model::CpuKernels::kTorch);
  return kernels == model::CpuKernels::kFused ? fused : torch;
}

v1::ForecastResponse forecast_expecting_ok(ServerHarness& harness,
                                           const v1::ForecastRequest& request) {
  v1::ForecastResponse response;
  grpc::ClientContext context;
  const grpc::Status status = harness.stub().Forecast(&context, request, &response);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return response;
}

v1::ForecastRequest forecast_request(int64_t variables, int64_t points, uint64_t seed) {
  std::mt19937_64 random(seed);
  std::normal_distribution<float> step(0.0f, 0.3f);
  v1::ForecastRequest request;
  auto* series = request.mutable_series();
  series->add_shape(variables);
  series->add_shape(points);
  for (int64_t v = 0; v < variables; ++v) {
    float level = 5.0f + static_cast<float>(v);
    for (int64_t t = 0; t < points; ++t) series->add_values(level += step(random));
  }
  return request;
}

}  // namespace tsserve::server::testing
