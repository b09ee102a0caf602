#include "server/observability/server_metrics.h"

#include <prometheus/text_serializer.h>

#include <chrono>
#include <exception>
#include <iterator>
#include <map>
#include <utility>

#include "server/httpd/http_status.h"

namespace tsserve::server {
namespace {

// GET /metrics: the exposition; anything else a JSON error.
template <typename Render>
HttpResponse metrics_page(const HttpRequest& request, Render render) {
  if (request.path != "/metrics") {
    return error_response({StatusCode::kNotFound, "the path: metrics are at /metrics"});
  }
  if (request.method != "GET") {
    HttpResponse refused = error_response(invalid_argument("the method: /metrics takes GET"));
    refused.status = 405;
    refused.headers.emplace_back("Allow", "GET");
    return refused;
  }
  HttpResponse page;
  page.content_type = "text/plain; version=0.0.4; charset=utf-8";
  page.body = render();
  return page;
}

constexpr int kUnknownCode = 2;

constexpr std::array<Method, kMethodCount> kMethods = {Method::kForecast,
                                                       Method::kEncode,
                                                       Method::kGetModelInfo,
                                                       Method::kListModels,
                                                       Method::kReportActuals,
                                                       Method::kServerLive,
                                                       Method::kServerReady,
                                                       Method::kModelReady,
                                                       Method::kServerMetadata,
                                                       Method::kModelMetadata,
                                                       Method::kModelInfer,
                                                       Method::kRepositoryModelLoad,
                                                       Method::kRepositoryModelUnload,
                                                       Method::kRepositoryIndex,
                                                       Method::kGetAccuracy,
                                                       Method::kObserve};

// 100us .. 10s in 1-2.5-5 steps: a GetModelInfo call to a slow forward pass on a long
// queue.
prometheus::Histogram::BucketBoundaries latency_buckets() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
          0.05,   0.1,     0.25,   0.5,   1.0,    2.5,   5.0,  10.0};
}

prometheus::Histogram::BucketBoundaries queue_wait_buckets() {
  prometheus::Histogram::BucketBoundaries buckets = {0.00001, 0.000025, 0.00005};
  for (double bound : latency_buckets()) buckets.push_back(bound);
  return buckets;
}

prometheus::Histogram::BucketBoundaries batch_rows_buckets() {
  prometheus::Histogram::BucketBoundaries buckets;
  for (double rows = 1; rows <= 1024; rows *= 2) buckets.push_back(rows);
  return buckets;
}

constexpr std::array<Transport, kTransportCount> kTransports = {Transport::kGrpc, Transport::kHttp};

std::size_t index_of(Method method) { return static_cast<std::size_t>(method); }
std::size_t index_of(Transport transport) { return static_cast<std::size_t>(transport); }

std::map<std::string, std::string> duration_labels(Transport transport, Method method,
                                                   const std::string& model) {
  return {{"protocol", protocol_label(transport, method)},
          {"method", method_name(method)},
          {"model", model}};
}

std::map<std::string, std::string> request_labels(Transport transport, Method method,
                                                  const std::string& model, int code) {
  std::map<std::string, std::string> labels = duration_labels(transport, method, model);
  labels.emplace("code", status_code_name(code));
  return labels;
}

}  // namespace

const char* method_name(Method method) {
  switch (method) {
    case Method::kForecast:
      return "Forecast";
    case Method::kEncode:
      return "Encode";
    case Method::kGetModelInfo:
      return "GetModelInfo";
    case Method::kListModels:
      return "ListModels";
    case Method::kRepositoryModelLoad:
      return "RepositoryModelLoad";
    case Method::kRepositoryModelUnload:
      return "RepositoryModelUnload";
    case Method::kRepositoryIndex:
      return "RepositoryIndex";
    case Method::kGetAccuracy:
      return "GetAccuracy";
    case Method::kServerLive:
      return "ServerLive";
    case Method::kServerReady:
      return "ServerReady";
    case Method::kModelReady:
      return "ModelReady";
    case Method::kServerMetadata:
      return "ServerMetadata";
    case Method::kModelMetadata:
      return "ModelMetadata";
    case Method::kModelInfer:
      return "ModelInfer";
    case Method::kReportActuals:
      return "ReportActuals";
    case Method::kObserve:
      return "Observe";
  }
  return "unknown";
}

const char* protocol_name(Method method) {
  switch (method) {
    case Method::kForecast:
    case Method::kEncode:
    case Method::kGetModelInfo:
    case Method::kListModels:
    case Method::kReportActuals:
    case Method::kGetAccuracy:
    case Method::kObserve:
      return "v1";
    case Method::kServerLive:
    case Method::kServerReady:
    case Method::kModelReady:
    case Method::kServerMetadata:
    case Method::kModelMetadata:
    case Method::kModelInfer:
    case Method::kRepositoryModelLoad:
    case Method::kRepositoryModelUnload:
    case Method::kRepositoryIndex:
      return "oip";
  }
  return "unknown";
}

const char* transport_name(Transport transport) {
  return transport == Transport::kHttp ? "http" : "grpc";
}

const char* protocol_label(Transport transport, Method method) {
  return transport == Transport::kHttp ? "http" : protocol_name(method);
}

ServerMetrics::ServerMetrics() : registry_(std::make_shared<prometheus::Registry>()) {
  requests_family_ = &prometheus::BuildCounter()
                          .Name("tsserve_requests_total")
                          .Help(
                              "RPCs finished, by protocol, method, gRPC status code and the "
                              "model they resolved (\"\" when none).")
                          .Register(*registry_);
  request_duration_family_ =
      &prometheus::BuildHistogram()
           .Name("tsserve_request_duration_seconds")
           .Help(
               "RPC latency from arrival to finish, by protocol, method and resolved model, in "
               "seconds.")
           .Register(*registry_);
  for (Transport transport : kTransports) {
    for (Method method : kMethods) {
      for (int code = 0; code < kStatusCodeCount; ++code) {
        unresolved_
            .requests[index_of(transport)][index_of(method)][static_cast<std::size_t>(code)] =
            &requests_family_->Add(request_labels(transport, method, "", code));
      }
      unresolved_.duration[index_of(transport)][index_of(method)] =
          &request_duration_family_->Add(duration_labels(transport, method, ""), latency_buckets());
    }
  }
  queue_wait_family_ = &prometheus::BuildHistogram()
                            .Name("tsserve_queue_wait_seconds")
                            .Help(
                                "Time a task waited in the batcher queue before its batch ran, "
                                "in seconds, by model and version.")
                            .Register(*registry_);
  compute_family_ = &prometheus::BuildHistogram()
                         .Name("tsserve_compute_seconds")
                         .Help("Time of one batch through the model, in seconds.")
                         .Register(*registry_);
  batch_rows_family_ = &prometheus::BuildHistogram()
                            .Name("tsserve_batch_rows")
                            .Help("Series rows in one batch.")
                            .Register(*registry_);
  inference_rows_family_ = &prometheus::BuildCounter()
                                .Name("tsserve_inference_rows_total")
                                .Help("Series rows run through the model.")
                                .Register(*registry_);
  queue_depth_rows_family_ = &prometheus::BuildGauge()
                                  .Name("tsserve_queue_depth_rows")
                                  .Help("Rows waiting in the version's batcher queues.")
                                  .Register(*registry_);
  inflight_ = &prometheus::BuildGauge()
                   .Name("tsserve_inflight_requests")
                   .Help("RPCs started and not yet finished.")
                   .Register(*registry_)
                   .Add({});
  ready_ = &prometheus::BuildGauge()
                .Name("tsserve_ready")
                .Help(
                    "1 when the server admits calls (not starting, not draining) and some "
                    "model has a ready version, else 0.")
                .Register(*registry_)
                .Add({});
  model_info_family_ = &prometheus::BuildGauge()
                            .Name("tsserve_model_info")
                            .Help("Each loaded model version (always 1).")
                            .Register(*registry_);
}

ServerMetrics::~ServerMetrics() = default;

Status ServerMetrics::serve(const std::string& address) {
  if (endpoint_ != nullptr) return {StatusCode::kFailedPrecondition, "metrics are already served"};
  HttpServerOptions options;
  options.address = address;
  // Scrapes are small and rare: one thread, short limits.
  options.max_body_bytes = 0;
  options.request_timeout = std::chrono::seconds(10);
  try {
    endpoint_ = std::make_unique<HttpServer>(
        options, [this](HttpRequest&& request, const HttpResponder& respond) {
          respond(metrics_page(request, [this] { return exposition(); }));
        });
  } catch (const std::exception& e) {
    return {StatusCode::kUnavailable, "cannot serve metrics on '" + address + "': " + e.what()};
  }
  return Status();
}

std::vector<int> ServerMetrics::listening_ports() const {
  if (endpoint_ == nullptr) return {};
  return {endpoint_->port()};
}

ServerMetrics::RequestSeries& ServerMetrics::request_series_locked(const std::string& model) {
  if (model.empty()) return unresolved_;
  auto it = models_.find(model);
  // A model none of whose versions is loaded any more counts as unresolved, so a late
  // call cannot bring back series that were removed.
  return it == models_.end() ? unresolved_ : it->second.series;
}

void ServerMetrics::record_request(Transport transport, Method method, const std::string& model,
                                   int status_code, double seconds) {
  if (status_code < 0 || status_code >= kStatusCodeCount) status_code = kUnknownCode;
  const auto code = static_cast<std::size_t>(status_code);
  const std::size_t index = index_of(method);
  MutexLock lock(models_mutex_);
  RequestSeries& series = request_series_locked(model);
  const std::string& label = &series == &unresolved_ ? std::string() : model;
  prometheus::Counter*& counter = series.requests[index_of(transport)][index][code];
  if (counter == nullptr) {
    counter = &requests_family_->Add(request_labels(transport, method, label, status_code));
  }
  prometheus::Histogram*& duration = series.duration[index_of(transport)][index];
  if (duration == nullptr) {
    duration = &request_duration_family_->Add(duration_labels(transport, method, label),
                                              latency_buckets());
  }
  counter->Increment();
  duration->Observe(seconds);
  ++answered_[index][code];
}

void ServerMetrics::add_inflight(int delta) { inflight_->Increment(delta); }

void ServerMetrics::set_ready(bool ready) { ready_->Set(ready ? 1.0 : 0.0); }

std::shared_ptr<ServerMetrics::VersionSeries> ServerMetrics::add_version(
    const std::string& model, const std::string& version, const std::string& attention,
    const std::string& device) {
  std::shared_ptr<VersionSeries> series(new VersionSeries(*this, model));
  const std::map<std::string, std::string> labels = {{"model", model}, {"version", version}};
  series->queue_wait_ = &queue_wait_family_->Add(labels, queue_wait_buckets());
  series->compute_ = &compute_family_->Add(labels, latency_buckets());
  series->batch_rows_ = &batch_rows_family_->Add(labels, batch_rows_buckets());
  series->inference_rows_ = &inference_rows_family_->Add(labels);
  series->queue_depth_rows_ = &queue_depth_rows_family_->Add(labels);
  prometheus::Gauge& model_info = model_info_family_->Add(
      {{"name", model}, {"version", version}, {"attention", attention}, {"device", device}});
  model_info.Set(1.0);  // before `series` holds it: its children are used under its mutex_
  series->model_info_ = &model_info;
  MutexLock lock(models_mutex_);
  ++models_[model].versions;
  versions_[{model, version}] = series;
  return series;
}

void ServerMetrics::remove_version(const std::string& model, const std::string& version) {
  std::shared_ptr<VersionSeries> series;
  {
    MutexLock lock(models_mutex_);
    auto it = versions_.find({model, version});
    if (it == versions_.end()) return;
    series = it->second.lock();
    versions_.erase(it);
  }
  if (series) series->retire();
}

void ServerMetrics::release_model(const std::string& model) {
  MutexLock lock(models_mutex_);
  for (auto it = versions_.begin(); it != versions_.end();) {
    it = it->second.expired() ? versions_.erase(it) : std::next(it);
  }
  auto it = models_.find(model);
  if (it == models_.end() || --it->second.versions > 0) return;
  for (Transport transport : kTransports) {
    for (Method method : kMethods) {
      for (prometheus::Counter* counter :
           it->second.series.requests[index_of(transport)][index_of(method)]) {
        if (counter != nullptr) requests_family_->Remove(counter);
      }
      prometheus::Histogram* duration =
          it->second.series.duration[index_of(transport)][index_of(method)];
      if (duration != nullptr) request_duration_family_->Remove(duration);
    }
  }
  models_.erase(it);
}

ServerMetrics::VersionSeries::~VersionSeries() { retire(); }

void ServerMetrics::VersionSeries::retire() {
  {
    MutexLock lock(mutex_);
    if (retired_) return;
    retired_ = true;
    metrics_.queue_wait_family_->Remove(queue_wait_);
    metrics_.compute_family_->Remove(compute_);
    metrics_.batch_rows_family_->Remove(batch_rows_);
    metrics_.inference_rows_family_->Remove(inference_rows_);
    metrics_.queue_depth_rows_family_->Remove(queue_depth_rows_);
    metrics_.model_info_family_->Remove(model_info_);
  }
  metrics_.release_model(model_);
}

void ServerMetrics::VersionSeries::record_batch(int rows, double compute_seconds) {
  MutexLock lock(mutex_);
  if (retired_) return;
  batch_rows_->Observe(rows);
  inference_rows_->Increment(rows);
  compute_->Observe(compute_seconds);
}

void ServerMetrics::VersionSeries::record_queue_wait(double seconds) {
  MutexLock lock(mutex_);
  if (!retired_) queue_wait_->Observe(seconds);
}

void ServerMetrics::VersionSeries::set_queue_depth_rows(std::int64_t rows) {
  MutexLock lock(mutex_);
  if (!retired_) queue_depth_rows_->Set(static_cast<double>(rows));
}

std::string ServerMetrics::answered_summary() const {
  MutexLock lock(models_mutex_);
  std::string summary;
  for (Method method : kMethods) {
    std::string codes;
    for (int code = 0; code < kStatusCodeCount; ++code) {
      const std::int64_t count = answered_[index_of(method)][static_cast<std::size_t>(code)];
      if (count == 0) continue;
      codes += (codes.empty() ? "" : ", ") + std::string(status_code_name(code)) + " " +
               std::to_string(count);
    }
    if (codes.empty()) continue;
    summary += (summary.empty() ? "" : "; ") + std::string(method_name(method)) + ": " + codes;
  }
  return summary.empty() ? "none" : summary;
}

std::int64_t ServerMetrics::inflight() const {
  return static_cast<std::int64_t>(inflight_->Value());
}

std::string ServerMetrics::exposition() const {
  return prometheus::TextSerializer().Serialize(registry_->Collect());
}

}  // namespace tsserve::server
