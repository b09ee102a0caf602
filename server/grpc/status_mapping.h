#pragma once
// The one place where a Status (status.h, call_status.h) becomes a gRPC status.

#include <grpcpp/support/status.h>

#include "server/status/status.h"

namespace tsserve::server {

// The same code and message (Status's codes are gRPC's); `field` prefixes the message
// ("model_name: ...") when the request field it is about is known.
grpc::Status to_grpc_status(const Status& status, const std::string& field = "");

}  // namespace tsserve::server
