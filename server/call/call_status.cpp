#include "server/call/call_status.h"

#include <chrono>
#include <cstdio>

namespace tsserve::server {

Status with_field(const Status& status, const std::string& field) {
  if (status.ok() || field.empty()) return status;
  return {status.code(), field + ": " + status.message()};
}

Status task_status(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk:
      return {};
    case StatusCode::kCancelled:
      return {StatusCode::kCancelled, "the call was cancelled before it was processed"};
    case StatusCode::kDeadlineExceeded:
      return {StatusCode::kDeadlineExceeded,
              "the deadline passed while the request was queued; it was not computed"};
    case StatusCode::kUnavailable:
      // The batcher's message names why (the drain's bound) and that a retry elsewhere works.
      return {StatusCode::kUnavailable, status.message()};
    default:
      break;
  }
  return {StatusCode::kInternal, status.message()};
}

Status serving_status(const ServingState& state) {
  if (state.serving()) return {};
  return {StatusCode::kUnavailable, "the server is not serving (starting or shutting down)"};
}

Status refusal_status(SubmitResult refusal, std::size_t rows, const BatcherOptions& options) {
  switch (refusal) {
    case SubmitResult::kQueueFull:
      return {StatusCode::kResourceExhausted, "the queue is full (at most " +
                                                  std::to_string(options.max_queue_rows) +
                                                  " rows may wait); retry with backoff"};
    case SubmitResult::kQueueWaitTooLong: {
      char limit[32];
      std::snprintf(limit, sizeof limit, "%g",
                    std::chrono::duration<double, std::milli>(options.max_queue_wait).count());
      return {StatusCode::kResourceExhausted,
              std::string("the server is overloaded: a request now would wait in the queue "
                          "longer than max_queue_wait_ms (") +
                  limit + " ms); retry with backoff"};
    }
    case SubmitResult::kShuttingDown:
      return {StatusCode::kUnavailable, "the server is shutting down"};
    case SubmitResult::kTooManyRows:
      return invalid_argument("series: " + std::to_string(rows) + " variables; at most " +
                              std::to_string(options.max_batch_rows) + " per request");
    case SubmitResult::kAccepted:
      break;
  }
  return {StatusCode::kInternal, "accepted task reported as refused"};
}

Status response_size_status(std::size_t bytes, std::int64_t max_bytes) {
  if (max_bytes <= 0 || bytes <= static_cast<std::size_t>(max_bytes)) return {};
  return {StatusCode::kResourceExhausted,
          "the answer would be " + std::to_string(bytes) + " bytes, over the server's " +
              "max_message_bytes = " + std::to_string(max_bytes) +
              "; ask for less: fewer attention maps (attention.layers, attention.variables, "
              "heads averaged) or fewer variables per request"};
}

}  // namespace tsserve::server
