#pragma once
// A batched call (batched_call.h) that came through gRPC: its ending is the RPC's reactor.

#include <grpcpp/grpcpp.h>

#include <utility>

#include "server/call/batched_call.h"
#include "server/grpc/unary_call.h"

namespace tsserve::server {

// Serves one gRPC call of `method` on `route`'s version; returns the reactor for gRPC.
template <typename Codec>
grpc::ServerUnaryReactor* serve_batched_grpc_call(const BatchedMethod& method,
                                                  grpc::CallbackServerContext* context,
                                                  const typename Codec::Request& request,
                                                  typename Codec::Response* response,
                                                  ModelRoute route, Codec codec = {}) {
  const auto call = UnaryCall::start(method.metrics, method.method, *context);
  BatchedCall<Codec>::start(method, call, request, response, std::move(route), std::move(codec));
  return call.get();
}

}  // namespace tsserve::server
