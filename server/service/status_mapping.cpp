#include "server/service/status_mapping.h"

#include <chrono>
#include <cstdio>
#include <string>

namespace tsserve::server {

// Status's codes are gRPC's, number for number, so the mapping is a cast.
static_assert(static_cast<int>(StatusCode::kInvalidArgument) == grpc::StatusCode::INVALID_ARGUMENT);
static_assert(static_cast<int>(StatusCode::kNotFound) == grpc::StatusCode::NOT_FOUND);
static_assert(static_cast<int>(StatusCode::kResourceExhausted) ==
              grpc::StatusCode::RESOURCE_EXHAUSTED);
static_assert(static_cast<int>(StatusCode::kFailedPrecondition) ==
              grpc::StatusCode::FAILED_PRECONDITION);
static_assert(static_cast<int>(StatusCode::kOutOfRange) == grpc::StatusCode::OUT_OF_RANGE);
static_assert(static_cast<int>(StatusCode::kInternal) == grpc::StatusCode::INTERNAL);
static_assert(static_cast<int>(StatusCode::kUnavailable) == grpc::StatusCode::UNAVAILABLE);

grpc::Status to_grpc_status(const Status& status, const std::string& field) {
  if (status.ok()) return grpc::Status::OK;
  return {static_cast<grpc::StatusCode>(status.code()),
          field.empty() ? status.message() : field + ": " + status.message()};
}

grpc::Status to_grpc_status(const TaskStatus& status) {
  switch (status.code) {
    case TaskCode::kOk:
      return grpc::Status::OK;
    case TaskCode::kCancelled:
      return {grpc::StatusCode::CANCELLED, "the call was cancelled before it was processed"};
    case TaskCode::kDeadlineExceeded:
      return {grpc::StatusCode::DEADLINE_EXCEEDED,
              "the deadline passed while the request was queued; it was not computed"};
    case TaskCode::kInternal:
      break;
  }
  return {grpc::StatusCode::INTERNAL, status.message};
}

grpc::Status to_grpc_status(const ServingState& state) {
  if (state.serving()) return grpc::Status::OK;
  return {grpc::StatusCode::UNAVAILABLE, "the server is not serving (starting or shutting down)"};
}

grpc::Status to_grpc_status(SubmitResult refusal, std::size_t rows, const BatcherOptions& options) {
  switch (refusal) {
    case SubmitResult::kQueueFull:
      return {grpc::StatusCode::RESOURCE_EXHAUSTED, "the queue is full (at most " +
                                                        std::to_string(options.max_queue_rows) +
                                                        " rows may wait); retry with backoff"};
    case SubmitResult::kQueueWaitTooLong: {
      char limit[32];
      std::snprintf(limit, sizeof limit, "%g",
                    std::chrono::duration<double, std::milli>(options.max_queue_wait).count());
      return {grpc::StatusCode::RESOURCE_EXHAUSTED,
              std::string("the server is overloaded: a request now would wait in the queue "
                          "longer than max_queue_wait_ms (") +
                  limit + " ms); retry with backoff"};
    }
    case SubmitResult::kShuttingDown:
      return {grpc::StatusCode::UNAVAILABLE, "the server is shutting down"};
    case SubmitResult::kTooManyRows:
      return {grpc::StatusCode::INVALID_ARGUMENT,
              "series: " + std::to_string(rows) + " variables; at most " +
                  std::to_string(options.max_batch_rows) + " per request"};
    case SubmitResult::kAccepted:
      break;
  }
  return {grpc::StatusCode::INTERNAL, "accepted task reported as refused"};
}

}  // namespace tsserve::server
