#pragma once
// gRPC's side of a call: its ending (call_ending.h): gRPC may learn that the caller cancelled or
// that the deadline passed (OnCancel), the batch task has the answer; whichever comes
// first ends the call, and the winning Status finishes the RPC (status_mapping.h). Also
// what a gRPC call gives the call path: its credentials and its deadline.
//
// Lifetime: gRPC holds one reference until OnDone; a queued task holds another. The
// response message belongs to gRPC and is written only by the one end() that wins,
// before Finish.

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>

#include "server/call/call_ending.h"

namespace tsserve::server {

class UnaryCall final : public CallEnding, public grpc::ServerUnaryReactor {
 public:
  // Starts tracking a call (counts it in flight), with the deadline and the W3C
  // `traceparent` metadata of `context`. `metrics` may be null.
  static std::shared_ptr<UnaryCall> start(ServerMetrics* metrics, Method method,
                                          const grpc::CallbackServerContext& context);

  void OnCancel() override;
  void OnDone() override;

 private:
  UnaryCall(ServerMetrics* metrics, Method method, std::chrono::steady_clock::time_point deadline)
      : CallEnding(metrics, Transport::kGrpc, method, deadline) {}
  void deliver(const Status& status) override;

  std::shared_ptr<UnaryCall> self_;  // gRPC's reference, released in OnDone
};

struct ServiceContext;

// OK when the call's `authorization` metadata passes service_context.h's authenticate().
Status authenticate(const ServiceContext& service, const grpc::ServerContextBase& context);

// gRPC deadline (system clock) -> the batcher's steady clock.
std::chrono::steady_clock::time_point steady_deadline(const grpc::CallbackServerContext& context);

}  // namespace tsserve::server
