#pragma once
// The server's Prometheus metrics: one prefix (tsserve_), base units, _total on counters.
//
//   tsserve_requests_total{protocol,method,code,model}   counter   RPCs finished, by gRPC status
//   tsserve_request_duration_seconds{protocol,method,model} histogram RPC latency, arrival to
//   finish tsserve_queue_wait_seconds{model,version}    histogram a task's wait in the batcher
//   tsserve_compute_seconds{model,version}       histogram one batch's forward pass
//   tsserve_batch_rows{model,version}            histogram rows in one batch
//   tsserve_inference_rows_total{model,version}  counter   rows through the model
//   tsserve_queue_depth_rows{model,version}      gauge     rows waiting in the version's batchers
//   tsserve_inflight_requests                    gauge     RPCs started, not finished
//   tsserve_model_info{name,version,attention,device} gauge 1 per loaded version
//   tsserve_ready                                gauge     1 when ready (replica_ready.h), else 0
//
// Buckets: request and compute latency 100us..10s (1-2.5-5 steps); queue wait the same
// from 10us, since a batch that fills at once waits microseconds; batch rows 1, 2, 4, ...,
// 1024.
//
// `protocol` is "v1" (tsserve.v1.ForecastService over gRPC), "oip" (the Open Inference
// Protocol, inference.GRPCInferenceService) or "http" (either API over HTTP/JSON, its
// method named as the gRPC method it stands for: POST /v2/models/m/infer is ModelInfer).
// Batch figures (queue wait, compute, rows) have no protocol: batches mix them all.
//
// Bounded labels: `model` is the name of a model the call RESOLVED to a loaded version
// (never the caller's raw string), or "" for calls that resolved none (NOT_FOUND,
// unauthenticated, ListModels, health checks). A model's request series exist while at
// least one of its versions holds a VersionSeries (add_version); each version's batch
// series and its model_info series are removed when its VersionSeries is destroyed, so the
// exposition is bounded by what is loaded, however many versions roll through.
//
// The model="" request children (2 transports x 13 methods x 17 status codes, and 2 x 13
// for latency) are created by the constructor and exported from the start (at 0), as
// Prometheus advises; a loaded model's children are created on their first call.
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
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "server/httpd/http_server.h"
#include "server/status/status.h"
#include "server/sync/mutex.h"
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
  kRepositoryIndex,  // the REST binding's POST /v2/repository/index
  kGetAccuracy,      // the JSON API's GET /v1/accuracy
  kObserve,
};
inline constexpr std::size_t kMethodCount = 16;
// "Forecast", "Encode", "GetModelInfo", "ServerLive", ...: the proto method names.
const char* method_name(Method method);
// "v1" or "oip": the API the method belongs to.
const char* protocol_name(Method method);

// The door a call came through: gRPC (either API) or HTTP (server/http/, both APIs).
enum class Transport { kGrpc, kHttp };
inline constexpr std::size_t kTransportCount = 2;
// "grpc" or "http".
const char* transport_name(Transport transport);
// The `protocol` label of a call: the method's API over gRPC ("v1", "oip"), "http" over
// HTTP.
const char* protocol_label(Transport transport, Method method);

class ServerMetrics {
 public:
  // The registry with every family and child; nothing is served yet.
  ServerMetrics();
  ServerMetrics(const ServerMetrics&) = delete;
  ServerMetrics& operator=(const ServerMetrics&) = delete;
  ~ServerMetrics();

  // Serves the registry over HTTP at http://`address`/metrics ("HOST:PORT"; port 0 picks a
  // free port, see listening_ports()). OK, FAILED_PRECONDITION when already serving, or
  // UNAVAILABLE saying why the address cannot be served. The server is tsserve's own
  // (http/http_server.h), not prometheus-cpp's civetweb Exposer (which cannot start
  // threads in a process holding LibTorch). REQUIRES: called at most once.
  Status serve(const std::string& address);
  // The bound ports while serving; empty before.
  std::vector<int> listening_ports() const;

  // An RPC finished with `status_code` after `seconds`. Codes out of 0..16 count as
  // UNKNOWN. `model` is the model the call resolved ("" if none); a model with no
  // VersionSeries alive (its last version unloaded while the call finished) counts as "".
  void record_request(Transport transport, Method method, const std::string& model, int status_code,
                      double seconds);
  void record_request(Method method, const std::string& model, int status_code, double seconds) {
    record_request(Transport::kGrpc, method, model, status_code, seconds);
  }
  void record_request(Method method, int status_code, double seconds) {
    record_request(Transport::kGrpc, method, "", status_code, seconds);
  }
  // +1 when an RPC starts, -1 when it finishes (or use InflightRequest).
  void add_inflight(int delta);
  void set_ready(bool ready);

  // One loaded version's series. They are removed by remove_version() once the version is
  // unloaded (its batchers drained), or when this object is destroyed, whichever comes
  // first; records after that do nothing. The model's request series go with its last
  // version. Thread safety: any thread.
  class VersionSeries {
   public:
    VersionSeries(const VersionSeries&) = delete;
    VersionSeries& operator=(const VersionSeries&) = delete;
    ~VersionSeries();
    // A batch of `rows` rows ran through the version's model in `compute_seconds`.
    void record_batch(int rows, double compute_seconds);
    // A task waited `seconds` in one of the version's batcher queues.
    void record_queue_wait(double seconds);
    // Rows waiting in the version's batchers now.
    void set_queue_depth_rows(std::int64_t rows);

   private:
    friend class ServerMetrics;
    VersionSeries(ServerMetrics& metrics, std::string model)
        : metrics_(metrics), model_(std::move(model)) {}
    // Removes the series, once.
    void retire();

    ServerMetrics& metrics_;
    const std::string model_;
    // The children below are set before the object is shared, then only removed (under
    // mutex_, which every record holds, so no record touches a removed child).
    Mutex mutex_;
    bool retired_ TSSERVE_GUARDED_BY(mutex_) = false;
    prometheus::Histogram* queue_wait_ TSSERVE_PT_GUARDED_BY(mutex_) = nullptr;
    prometheus::Histogram* compute_ TSSERVE_PT_GUARDED_BY(mutex_) = nullptr;
    prometheus::Histogram* batch_rows_ TSSERVE_PT_GUARDED_BY(mutex_) = nullptr;
    prometheus::Counter* inference_rows_ TSSERVE_PT_GUARDED_BY(mutex_) = nullptr;
    prometheus::Gauge* queue_depth_rows_ TSSERVE_PT_GUARDED_BY(mutex_) = nullptr;
    prometheus::Gauge* model_info_ TSSERVE_PT_GUARDED_BY(mutex_) = nullptr;
  };
  // The series of version `version` of `model` (model_info = 1 with `attention` and
  // `device`). REQUIRES: this ServerMetrics outlives the result; one per loaded version.
  std::shared_ptr<VersionSeries> add_version(const std::string& model, const std::string& version,
                                             const std::string& attention,
                                             const std::string& device);
  // The version was unloaded: its series are removed now, though a lingering call may
  // still hold the version (and its VersionSeries) a while. Unknown versions are ignored.
  void remove_version(const std::string& model, const std::string& version);

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
  // A transport x method x status-code grid of request series for one model label.
  struct RequestSeries {
    using Codes = std::array<prometheus::Counter*, kStatusCodeCount>;
    std::array<std::array<Codes, kMethodCount>, kTransportCount> requests{};
    std::array<std::array<prometheus::Histogram*, kMethodCount>, kTransportCount> duration{};
  };
  // A loaded model's request series, created on first use, and how many versions hold it.
  struct ModelSeries {
    int versions = 0;
    RequestSeries series;
  };
  // One fewer version holds `model`'s request series; the last one removes them.
  void release_model(const std::string& model);
  RequestSeries& request_series_locked(const std::string& model) TSSERVE_REQUIRES(models_mutex_);

  // Constant after construction.
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>* requests_family_ = nullptr;
  prometheus::Family<prometheus::Histogram>* request_duration_family_ = nullptr;
  prometheus::Family<prometheus::Histogram>* queue_wait_family_ = nullptr;
  prometheus::Family<prometheus::Histogram>* compute_family_ = nullptr;
  prometheus::Family<prometheus::Histogram>* batch_rows_family_ = nullptr;
  prometheus::Family<prometheus::Counter>* inference_rows_family_ = nullptr;
  prometheus::Family<prometheus::Gauge>* queue_depth_rows_family_ = nullptr;
  prometheus::Family<prometheus::Gauge>* model_info_family_ = nullptr;
  RequestSeries unresolved_;  // model="", all created by the constructor
  prometheus::Gauge* inflight_ = nullptr;
  prometheus::Gauge* ready_ = nullptr;
  std::unique_ptr<HttpServer> endpoint_;  // set once by serve()

  // Guards models_ and the lazy creation of their children (and their removal, so a
  // record never touches a removed child).
  mutable Mutex models_mutex_;
  std::map<std::string, ModelSeries> models_ TSSERVE_GUARDED_BY(models_mutex_);
  // The live VersionSeries by (model, version), for remove_version. Guarded likewise.
  std::map<std::pair<std::string, std::string>, std::weak_ptr<VersionSeries>> versions_
      TSSERVE_GUARDED_BY(models_mutex_);
  // Calls answered since start by method and code, over every model: what the stop line
  // reports (answered_summary). Kept apart from the series, which leave with their model
  // (the drain unloads every version before the stop line is written). Guarded likewise.
  std::array<std::array<std::int64_t, kStatusCodeCount>, kMethodCount> answered_
      TSSERVE_GUARDED_BY(models_mutex_){};
};

}  // namespace tsserve::server
