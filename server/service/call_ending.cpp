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
  MutexLock lock(model_mutex_);
  model_ = model;
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
  if (metrics_) {
    std::string model;
    {
      MutexLock lock(model_mutex_);
      model = model_;
    }
    metrics_->record_request(transport_, method_, model, code, took.count());
    metrics_->add_inflight(-1);
  }
  spdlog::debug("{} {} finished {} in {:.3f} ms{}{}", transport_name(transport_),
                method_name(method_), status_code_name(code), took.count() * 1e3,
                status.ok() ? "" : ": ", status.message());
  deliver(status);
}

}  // namespace tsserve::server
