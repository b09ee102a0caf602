#include "server/observability/server_metrics.h"

#include <prometheus/text_serializer.h>

#include <exception>
#include <utility>

namespace tsserve::server {
namespace {

constexpr int kUnknownCode = 2;

constexpr std::array<Method, kMethodCount> kMethods = {
    Method::kForecast,       Method::kEncode,        Method::kGetModelInfo,
    Method::kListModels,     Method::kReportActuals, Method::kServerLive,
    Method::kServerReady,    Method::kModelReady,    Method::kServerMetadata,
    Method::kModelMetadata,  Method::kModelInfer,    Method::kRepositoryModelLoad,
    Method::kRepositoryModelUnload};

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

std::size_t index_of(Method method) { return static_cast<std::size_t>(method); }

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
      return "v1";
    case Method::kServerLive:
    case Method::kServerReady:
    case Method::kModelReady:
    case Method::kServerMetadata:
    case Method::kModelMetadata:
    case Method::kModelInfer:
    case Method::kRepositoryModelLoad:
    case Method::kRepositoryModelUnload:
      return "oip";
  }
  return "unknown";
}

ServerMetrics::ServerMetrics() : registry_(std::make_shared<prometheus::Registry>()) {
  auto& requests = prometheus::BuildCounter()
                       .Name("tsserve_requests_total")
                       .Help("RPCs finished, by protocol, method and gRPC status code.")
                       .Register(*registry_);
  auto& request_duration = prometheus::BuildHistogram()
                               .Name("tsserve_request_duration_seconds")
                               .Help(
                                   "RPC latency from arrival to finish, by protocol and method, in "
                                   "seconds.")
                               .Register(*registry_);
  for (Method method : kMethods) {
    for (int code = 0; code < kStatusCodeCount; ++code) {
      requests_[index_of(method)][static_cast<std::size_t>(code)] =
          &requests.Add({{"protocol", protocol_name(method)},
                         {"method", method_name(method)},
                         {"code", status_code_name(code)}});
    }
    request_duration_[index_of(method)] = &request_duration.Add(
        {{"protocol", protocol_name(method)}, {"method", method_name(method)}}, latency_buckets());
  }
  queue_wait_ = &prometheus::BuildHistogram()
                     .Name("tsserve_queue_wait_seconds")
                     .Help(
                         "Time a task waited in the batcher queue before its batch ran, "
                         "in seconds.")
                     .Register(*registry_)
                     .Add({}, queue_wait_buckets());
  compute_ = &prometheus::BuildHistogram()
                  .Name("tsserve_compute_seconds")
                  .Help("Time of one batch through the model, in seconds.")
                  .Register(*registry_)
                  .Add({}, latency_buckets());
  batch_rows_ = &prometheus::BuildHistogram()
                     .Name("tsserve_batch_rows")
                     .Help("Series rows in one batch.")
                     .Register(*registry_)
                     .Add({}, batch_rows_buckets());
  inference_rows_ = &prometheus::BuildCounter()
                         .Name("tsserve_inference_rows_total")
                         .Help("Series rows run through the model.")
                         .Register(*registry_)
                         .Add({});
  queue_depth_rows_ = &prometheus::BuildGauge()
                           .Name("tsserve_queue_depth_rows")
                           .Help("Rows waiting in the batcher queues.")
                           .Register(*registry_)
                           .Add({});
  inflight_ = &prometheus::BuildGauge()
                   .Name("tsserve_inflight_requests")
                   .Help("RPCs started and not yet finished.")
                   .Register(*registry_)
                   .Add({});
  ready_ = &prometheus::BuildGauge()
                .Name("tsserve_ready")
                .Help(
                    "1 when the model is loaded and warmed up and the server is not "
                    "draining, else 0.")
                .Register(*registry_)
                .Add({});
  model_info_family_ = &prometheus::BuildGauge()
                            .Name("tsserve_model_info")
                            .Help("The served model (always 1).")
                            .Register(*registry_);
}

ServerMetrics::~ServerMetrics() = default;

std::string ServerMetrics::serve(const std::string& address) {
  if (endpoint_ != nullptr) return "metrics are already served";
  try {
    endpoint_ = std::make_unique<MetricsHttpEndpoint>(address, [this] { return exposition(); });
  } catch (const std::exception& e) {
    return "cannot serve metrics on '" + address + "': " + e.what();
  }
  return "";
}

std::vector<int> ServerMetrics::listening_ports() const {
  if (endpoint_ == nullptr) return {};
  return {endpoint_->port()};
}

void ServerMetrics::record_request(Method method, int status_code, double seconds) {
  if (status_code < 0 || status_code >= kStatusCodeCount) status_code = kUnknownCode;
  requests_[index_of(method)][static_cast<std::size_t>(status_code)]->Increment();
  request_duration_[index_of(method)]->Observe(seconds);
}

void ServerMetrics::record_batch(int rows, double compute_seconds) {
  batch_rows_->Observe(rows);
  inference_rows_->Increment(rows);
  compute_->Observe(compute_seconds);
}

void ServerMetrics::record_queue_wait(double seconds) { queue_wait_->Observe(seconds); }

void ServerMetrics::add_inflight(int delta) { inflight_->Increment(delta); }

void ServerMetrics::set_queue_depth_rows(std::int64_t rows) {
  queue_depth_rows_->Set(static_cast<double>(rows));
}

void ServerMetrics::set_ready(bool ready) { ready_->Set(ready ? 1.0 : 0.0); }

void ServerMetrics::set_model_info(const std::string& name, const std::string& version,
                                   const std::string& attention, const std::string& device) {
  std::lock_guard<std::mutex> lock(model_info_mutex_);
  if (model_info_ != nullptr) model_info_family_->Remove(model_info_);
  model_info_ = &model_info_family_->Add(
      {{"name", name}, {"version", version}, {"attention", attention}, {"device", device}});
  model_info_->Set(1.0);
}

std::string ServerMetrics::answered_summary() const {
  std::string summary;
  for (Method method : kMethods) {
    std::string codes;
    for (int code = 0; code < kStatusCodeCount; ++code) {
      const auto count = static_cast<long long>(
          requests_[index_of(method)][static_cast<std::size_t>(code)]->Value());
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
