#pragma once
// The Status of each outcome on the call path that is not the codec's, the same for every
// door (gRPC maps it with status_mapping.h, HTTP with server/httpd/http_status.h).

#include <cstddef>
#include <cstdint>
#include <string>

#include "server/batching/batch_task.h"
#include "server/batching/dynamic_batcher.h"
#include "server/call/serving_state.h"
#include "server/status/status.h"

namespace tsserve::server {

// The same code, the message prefixed by `field` ("model_name: ...") when the request
// field it is about is known.
Status with_field(const Status& status, const std::string& field);

// A task's outcome (processed, cancelled, expired, failed batch).
Status task_status(const Status& status);

// Whether new calls are admitted: OK while serving, UNAVAILABLE before (starting) and after
// (draining).
Status serving_status(const ServingState& state);

// Why the batcher refused a task; `rows` is the task's row count. REQUIRES: not kAccepted.
Status refusal_status(SubmitResult refusal, std::size_t rows, const BatcherOptions& options);

// OK, or RESOURCE_EXHAUSTED when an answer of `bytes` exceeds `max_bytes` (0: no limit).
Status response_size_status(std::size_t bytes, std::int64_t max_bytes);

}  // namespace tsserve::server
