#include "server/grpc/unary_call.h"

#include "server/call/service_context.h"
#include "server/grpc/happens_before.h"
#include "server/grpc/status_mapping.h"

namespace tsserve::server {

std::shared_ptr<UnaryCall> UnaryCall::start(ServerMetrics* metrics, Method method,
                                            const grpc::CallbackServerContext& context) {
  std::shared_ptr<UnaryCall> call(new UnaryCall(metrics, method, steady_deadline(context)));
  const auto& metadata = context.client_metadata();
  if (const auto found = metadata.find("traceparent"); found != metadata.end()) {
    call->set_trace(
        parse_traceparent(std::string_view(found->second.data(), found->second.size())));
  }
  call->self_ = call;
  // gRPC calls OnCancel/OnDone, maybe on another thread, only once the handler has
  // returned this reactor (happens_before.h says why TSan needs telling).
  happens_before(call.get());
  return call;
}

void UnaryCall::deliver(const Status& status) {
  // Finish may run OnDone at once, which drops gRPC's reference: keep this object alive
  // until we return.
  const std::shared_ptr<UnaryCall> keep = self_;
  happens_before(this);  // OnDone, on a gRPC thread, follows Finish
  Finish(to_grpc_status(status));
}

// The caller's clock runs its deadline out up to one transit time before ours (our copy
// starts when the request arrives), and its cancel can reach us first: a cancel this
// close to our deadline is the deadline, not the caller going away.
constexpr std::chrono::milliseconds kDeadlineTransitMargin{50};

void UnaryCall::OnCancel() {
  happens_after(this);
  // gRPC cancels a call whose deadline passed as well; say which it was.
  if (deadline() != std::chrono::steady_clock::time_point::max() &&
      std::chrono::steady_clock::now() >= deadline() - kDeadlineTransitMargin) {
    end(Status(StatusCode::kDeadlineExceeded, "the deadline passed before the answer was ready"));
  } else {
    end(Status(StatusCode::kCancelled, "the client cancelled the call"));
  }
}

void UnaryCall::OnDone() {
  happens_after(this);
  self_.reset();
}

Status authenticate(const ServiceContext& service, const grpc::ServerContextBase& context) {
  constexpr std::string_view kHeader = "authorization";
  const auto& metadata = context.client_metadata();
  const auto found = metadata.equal_range(grpc::string_ref(kHeader.data(), kHeader.size()));
  const auto count = static_cast<std::size_t>(std::distance(found.first, found.second));
  if (count == 0) return authenticate(service, std::nullopt, 0);
  const grpc::string_ref value = found.first->second;
  return authenticate(service, std::string_view(value.data(), value.size()), count);
}

std::chrono::steady_clock::time_point steady_deadline(const grpc::CallbackServerContext& context) {
  const auto deadline = context.deadline();
  if (deadline == std::chrono::system_clock::time_point::max()) {
    return std::chrono::steady_clock::time_point::max();
  }
  const auto remaining = deadline - std::chrono::system_clock::now();
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(remaining);
}

}  // namespace tsserve::server
