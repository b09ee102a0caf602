#include "server/service/unary_call.h"

#include <spdlog/spdlog.h>

#include "server/service/happens_before.h"

namespace tsserve::server {

std::shared_ptr<UnaryCall> UnaryCall::start(ServerMetrics* metrics, Method method,
                                            std::chrono::steady_clock::time_point deadline) {
  std::shared_ptr<UnaryCall> call(new UnaryCall(metrics, method, deadline));
  call->self_ = call;
  // gRPC calls OnCancel/OnDone, maybe on another thread, only once the handler has
  // returned this reactor (happens_before.h says why TSan needs telling).
  happens_before(call.get());
  return call;
}

UnaryCall::UnaryCall(ServerMetrics* metrics, Method method,
                     std::chrono::steady_clock::time_point deadline)
    : metrics_(metrics),
      method_(method),
      deadline_(deadline),
      arrived_(std::chrono::steady_clock::now()) {
  if (metrics_) metrics_->add_inflight(+1);
}

void UnaryCall::set_model(const std::string& model) {
  MutexLock lock(model_mutex_);
  model_ = model;
}

void UnaryCall::end(const grpc::Status& status) {
  if (claim()) finish(status);
}

void UnaryCall::end(const std::function<grpc::Status()>& answer) {
  if (claim()) finish(answer());
}

void UnaryCall::finish(const grpc::Status& status) {
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - arrived_;
  const int code = static_cast<int>(status.error_code());
  if (metrics_) {
    std::string model;
    {
      MutexLock lock(model_mutex_);
      model = model_;
    }
    metrics_->record_request(method_, model, code, took.count());
    metrics_->add_inflight(-1);
  }
  spdlog::debug("{} finished {} in {:.3f} ms{}{}", method_name(method_), status_code_name(code),
                took.count() * 1e3, status.ok() ? "" : ": ", status.error_message());
  // Finish may run OnDone at once, which drops gRPC's reference: keep this object alive
  // until we return.
  const std::shared_ptr<UnaryCall> keep = self_;
  happens_before(this);  // OnDone, on a gRPC thread, follows Finish
  Finish(status);
}

// The caller's clock runs its deadline out up to one transit time before ours (our copy
// starts when the request arrives), and its cancel can reach us first: a cancel this
// close to our deadline is the deadline, not the caller going away.
constexpr std::chrono::milliseconds kDeadlineTransitMargin{50};

void UnaryCall::OnCancel() {
  happens_after(this);
  // gRPC cancels a call whose deadline passed as well; say which it was.
  if (deadline_ != std::chrono::steady_clock::time_point::max() &&
      std::chrono::steady_clock::now() >= deadline_ - kDeadlineTransitMargin) {
    end(grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                     "the deadline passed before the answer was ready"));
  } else {
    end(grpc::Status(grpc::StatusCode::CANCELLED, "the client cancelled the call"));
  }
}

void UnaryCall::OnDone() {
  happens_after(this);
  self_.reset();
}

}  // namespace tsserve::server
