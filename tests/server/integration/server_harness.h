#pragma once
// An in-process tsserve on loopback port 0 with real gRPC stubs, plus the model loaded
// separately in-process as the reference for "the same answer as the library".

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "child_process.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "inference/grpc_service.grpc.pb.h"
#include "server/app/inference_server.h"
#include "server/config/server_config.h"
#include "tsserve/model/patchtst.h"
#include "tsserve/model/row_forecaster.h"
#include "tsserve/v1/forecast_service.grpc.pb.h"

namespace tsserve::server::testing {

// Defaults for tests: loopback, any free port, one instance of one thread (not auto: a
// test that counts batches must not depend on the machine), quiet logs; the default
// kernels (fused).
ServerConfig test_config();

class ServerHarness {
 public:
  explicit ServerHarness(const ServerConfig& config = test_config());

  v1::ForecastService::Stub& stub() { return *stub_; }
  // The Open Inference Protocol on the same channel.
  inference::GRPCInferenceService::Stub& oip() { return *oip_; }
  grpc::health::v1::Health::Stub& health() { return *health_; }
  InferenceServer& server() { return *server_; }
  // GET /metrics over HTTP from the server's metrics port.
  std::string scrape() const;

 private:
  std::unique_ptr<InferenceServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::ForecastService::Stub> stub_;
  std::unique_ptr<inference::GRPCInferenceService::Stub> oip_;
  std::unique_ptr<grpc::health::v1::Health::Stub> health_;
};

// Waits (bounded) for `count` asynchronous calls to finish.
class CallCounter {
 public:
  explicit CallCounter(int count) : left_(count) {}
  void done() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (--left_ == 0) cv_.notify_all();
  }
  bool wait(std::chrono::seconds limit) {
    std::unique_lock<std::mutex> lock(mutex_);
    return cv_.wait_for(lock, limit, [&] { return left_ == 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int left_;
};

// Sends every request at once (the async stub) and waits for all the answers, bounded by
// `limit`. Fills `responses` and `statuses` (resized to requests.size()); false when some
// call had not finished in time.
bool forecast_concurrently(ServerHarness& harness, const std::vector<v1::ForecastRequest>& requests,
                           std::vector<v1::ForecastResponse>& responses,
                           std::vector<grpc::Status>& statuses, std::chrono::seconds limit);

// Scrapes until `series` (metric_total: its labels a subset of each sample's, summed)
// reads `value` or 30 s pass (each scrape is a round trip: the
// wait is for the server's own event, with a bound, not a sleep).
bool metric_reaches(ServerHarness& harness, const std::string& series, double value);

// The bundled model, loaded by the library directly (no server involved): its LibTorch
// modules.
model::PatchTST& reference_model();

// The same model through the library's RowForecaster with the given kernels: what a
// server with that --cpu-kernels must answer bit for bit.
const model::RowForecaster& reference_forecaster(model::CpuKernels kernels);

// A typed Tensor's values; a request's series [N, T] (VARIABLES_BY_TIME) as model rows.
std::vector<float> floats(const v1::Tensor& t);
at::Tensor rows_of(const v1::ForecastRequest& request);

// One Forecast call, expected to succeed (a failure is a test failure naming the status).
v1::ForecastResponse forecast_expecting_ok(ServerHarness& harness,
                                           const v1::ForecastRequest& request);

// A ForecastRequest for N variables of T points (seeded random walk), raw units.
v1::ForecastRequest forecast_request(int64_t variables, int64_t points, uint64_t seed);

// Scraping helpers shared with the end-to-end tests (tests/support/child_process.h).
using tsserve::testing::http_get;
using tsserve::testing::metric_value;
using tsserve::testing::metric_total;

}  // namespace tsserve::server::testing
