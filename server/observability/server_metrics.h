#pragma once
// The server's Prometheus metrics: one prefix (tsserve_), base units, _total on counters.
//
//   tsserve_requests_total{protocol,method,code} counter   RPCs finished, by gRPC status
//   tsserve_request_duration_seconds{protocol,method} histogram RPC latency, arrival to finish
//   tsserve_queue_wait_seconds                   histogram a task's wait in the batcher
//   tsserve_compute_seconds                      histogram one batch's forward pass
//   tsserve_batch_rows                           histogram rows in one batch
//   tsserve_inference_rows_total                 counter   rows through the model
//   tsserve_queue_depth_rows                     gauge     rows waiting in the batchers
//   tsserve_inflight_requests                    gauge     RPCs started, not finished
//   tsserve_model_info{name,version,attention,device} gauge 1 for the loaded model
//   tsserve_ready                                gauge     1 when serving, else 0
//
// Buckets: request and compute latency 100us..10s (1-2.5-5 steps); queue wait the same
// from 10us, since a batch that fills at once waits microseconds; batch rows 1, 2, 4, ...,
// 1024.
//
// `protocol` is "v1" (tsserve.v1.ForecastService) or "oip" (the Open Inference Protocol,
// inference.GRPCInferenceService); each method belongs to one protocol, so the pair is one
// series. Batch figures (queue wait, compute, rows) have no protocol: batches mix both.
//
// Every labelled child (10 methods x 17 status codes, 10 methods for latency) is created by
// the constructor, so the record functions index arrays and never look a label set up,
// and every series is exported from the start (at 0), as Prometheus advises.
//
// Thread safety: the record and set functions may be called from any thread (they use
// prometheus-cpp's thread-safe metrics). serve() is called once, at startup.

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "server/observability/metrics_http_endpoint.h"
#include "tsserve/status/status_code_names.h"  // kStatusCodeCount, status_code_name

namespace tsserve::server {

// The RPC methods with their own series: tsserve.v1's, then the Open Inference Protocol's.
enum class Method {
  kForecast,
  kEncode,
  kGetModelInfo,
  kListModels,
  kReportActuals,
  kServerLive,
  kServerReady,
  kModelReady,
  kServerMetadata,
  kModelMetadata,
  kModelInfer,
  kRepositoryModelLoad,
  kRepositoryModelUnload,
};
inline constexpr std::size_t kMethodCount = 13;
// "Forecast", "Encode", "GetModelInfo", "ServerLive", ...: the proto method names.
const char* method_name(Method method);
// "v1" or "oip": the API the method belongs to.
const char* protocol_name(Method method);

class ServerMetrics {
 public:
  // The registry with every family and child; nothing is served yet.
  ServerMetrics();
  ServerMetrics(const ServerMetrics&) = delete;
  ServerMetrics& operator=(const ServerMetrics&) = delete;
  ~ServerMetrics();

  // Serves the registry over HTTP at http://`address`/metrics ("HOST:PORT"; port 0 picks a
  // free port, see listening_ports()). "" on success, else why not. The endpoint is
  // metrics_http_endpoint.h, not prometheus-cpp's civetweb Exposer (which cannot start
  // threads in a process holding LibTorch). REQUIRES: called at most once.
  std::string serve(const std::string& address);
  // The bound ports while serving; empty before.
  std::vector<int> listening_ports() const;

  // An RPC finished with `status_code` after `seconds`. Codes out of 0..16 count as
  // UNKNOWN.
  void record_request(Method method, int status_code, double seconds);
  // A batch of `rows` rows ran through the model in `compute_seconds`.
  void record_batch(int rows, double compute_seconds);
  // A task waited `seconds` in the batcher queue before its batch started.
  void record_queue_wait(double seconds);
  // +1 when an RPC starts, -1 when it finishes (or use InflightRequest).
  void add_inflight(int delta);
  void set_queue_depth_rows(std::int64_t rows);
  void set_ready(bool ready);
  // Replaces the model_info series (one at a time).
  void set_model_info(const std::string& name, const std::string& version,
                      const std::string& attention, const std::string& device);

  // The registry in Prometheus text format (exactly what /metrics serves).
  std::string exposition() const;

  // requests_total so far, for the log line that ends a drain (the endpoint is gone by the
  // time anyone could scrape it): "Forecast: OK 120, UNAVAILABLE 3; GetModelInfo: OK 1",
  // leaving out what is 0; "none" when no call finished.
  std::string answered_summary() const;
  // RPCs started and not finished now (the inflight_requests gauge).
  std::int64_t inflight() const;
  // For other collectors that want to join the same endpoint.
  const std::shared_ptr<prometheus::Registry>& registry() const { return registry_; }

  // Counts one in-flight RPC for its lifetime.
  class InflightRequest {
   public:
    explicit InflightRequest(ServerMetrics& metrics) : metrics_(&metrics) {
      metrics_->add_inflight(1);
    }
    InflightRequest(InflightRequest&& other) noexcept : metrics_(other.metrics_) {
      other.metrics_ = nullptr;
    }
    InflightRequest(const InflightRequest&) = delete;
    InflightRequest& operator=(const InflightRequest&) = delete;
    InflightRequest& operator=(InflightRequest&&) = delete;
    ~InflightRequest() {
      if (metrics_ != nullptr) metrics_->add_inflight(-1);
    }

   private:
    ServerMetrics* metrics_;
  };

 private:
  // Constant after construction.
  std::shared_ptr<prometheus::Registry> registry_;
  std::array<std::array<prometheus::Counter*, kStatusCodeCount>, kMethodCount> requests_{};
  std::array<prometheus::Histogram*, kMethodCount> request_duration_{};
  prometheus::Histogram* queue_wait_ = nullptr;
  prometheus::Histogram* compute_ = nullptr;
  prometheus::Histogram* batch_rows_ = nullptr;
  prometheus::Counter* inference_rows_ = nullptr;
  prometheus::Gauge* queue_depth_rows_ = nullptr;
  prometheus::Gauge* inflight_ = nullptr;
  prometheus::Gauge* ready_ = nullptr;
  prometheus::Family<prometheus::Gauge>* model_info_family_ = nullptr;
  std::unique_ptr<MetricsHttpEndpoint> endpoint_;  // set once by serve()

  std::mutex model_info_mutex_;
  prometheus::Gauge* model_info_ = nullptr;  // guarded by model_info_mutex_
};

}  // namespace tsserve::server
