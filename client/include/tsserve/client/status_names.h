#pragma once
// gRPC status codes by their canonical names ("INVALID_ARGUMENT"), as the gRPC docs,
// Prometheus labels and other tools spell them.

#include <grpcpp/support/status_code_enum.h>

#include <string>

namespace tsserve::client {

std::string status_code_name(grpc::StatusCode code);

}  // namespace tsserve::client
