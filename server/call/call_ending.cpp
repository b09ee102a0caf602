#include "server/call/call_ending.h"

#include <spdlog/spdlog.h>

#include "server/observability/log_text.h"

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
  // The debug line's text is escaped per call: built only when it is logged.
  const bool logged = spdlog::should_log(spdlog::level::debug);
  std::string model, about;
  {
    MutexLock lock(about_mutex_);
    model = model_;
    // Every value here came with the request: escaped and cut (log_text.h).
    if (logged && !request_id_.empty()) about += " request_id=" + log_text(request_id_);
    if (logged && trace_) {
      about +=
          " trace_id=" + log_text(trace_->trace_id) + " parent_id=" + log_text(trace_->parent_id);
    }
  }
  if (metrics_) {
    metrics_->record_request(transport_, method_, model, code, took.count());
    metrics_->add_inflight(-1);
  }
  // An error's message quotes what the request sent (a model name, a series key) beside
  // what was expected: escaped too, and cut later than a single value.
  if (logged) {
    spdlog::debug("{} {} finished {} in {:.3f} ms{}{}{}", transport_name(transport_),
                  method_name(method_), status_code_name(code), took.count() * 1e3, about,
                  status.ok() ? "" : ": ", status.ok() ? "" : log_text(status.message(), 1024));
  }
  deliver(status);
}

}  // namespace tsserve::server
