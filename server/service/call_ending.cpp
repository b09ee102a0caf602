#include "server/service/call_ending.h"

#include <spdlog/spdlog.h>

namespace tsserve::server {

CallEnding::CallEnding(ServerMetrics* metrics, Transport transport, Method method,
                       std::chrono::steady_clock::time_point deadline)
    : metrics_(metrics),
      transport_(transport),
      method_(method),
      deadline_(deadline),
      arrived_(std::chrono::steady_clock::now()) {
  if (metrics_) metrics_->add_inflight(+1);
}

void CallEnding::set_model(const std::string& model) {
  MutexLock lock(about_mutex_);
  model_ = model;
}

void CallEnding::set_request_id(const std::string& request_id) {
  MutexLock lock(about_mutex_);
  request_id_ = request_id;
}

void CallEnding::set_trace(std::optional<TraceContext> trace) {
  MutexLock lock(about_mutex_);
  trace_ = std::move(trace);
}

void CallEnding::end(const Status& status) {
  if (claim()) finish(status);
}

void CallEnding::end(const std::function<Status()>& answer) {
  if (claim()) finish(answer());
}

void CallEnding::finish(const Status& status) {
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - arrived_;
  const int code = static_cast<int>(status.code());
  std::string model, about;
  {
    MutexLock lock(about_mutex_);
    model = model_;
    if (!request_id_.empty()) about += " request_id=" + request_id_;
    if (trace_) about += " trace_id=" + trace_->trace_id + " parent_id=" + trace_->parent_id;
  }
  if (metrics_) {
    metrics_->record_request(transport_, method_, model, code, took.count());
    metrics_->add_inflight(-1);
  }
  spdlog::debug("{} {} finished {} in {:.3f} ms{}{}{}", transport_name(transport_),
                method_name(method_), status_code_name(code), took.count() * 1e3, about,
                status.ok() ? "" : ": ", status.message());
  deliver(status);
}

}  // namespace tsserve::server
