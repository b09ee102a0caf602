#pragma once
// The one place where internal outcomes become gRPC statuses.

#include <grpcpp/support/status.h>

#include "server/batching/batch_task.h"
#include "server/batching/dynamic_batcher.h"
#include "server/service/serving_state.h"
#include "server/status/status.h"

namespace tsserve::server {

// The same code and message (Status's codes are gRPC's); `field` prefixes the message
// ("model_name: ...") when the request field it is about is known.
grpc::Status to_grpc_status(const Status& status, const std::string& field = "");

// A task's outcome (processed, cancelled, expired, failed batch).
grpc::Status to_grpc_status(const TaskStatus& status);

// Whether new calls are admitted: OK while serving, UNAVAILABLE before (starting) and after
// (draining).
grpc::Status to_grpc_status(const ServingState& state);

// Why the batcher refused a task; `rows` is the task's row count. REQUIRES: not kAccepted.
grpc::Status to_grpc_status(SubmitResult refusal, std::size_t rows, const BatcherOptions& options);

}  // namespace tsserve::server
