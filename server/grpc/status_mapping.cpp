#include "server/grpc/status_mapping.h"

#include <string>

namespace tsserve::server {

// Status's codes are gRPC's, number for number, so the mapping is a cast.
static_assert(static_cast<int>(StatusCode::kCancelled) == grpc::StatusCode::CANCELLED);
static_assert(static_cast<int>(StatusCode::kDeadlineExceeded) ==
              grpc::StatusCode::DEADLINE_EXCEEDED);
static_assert(static_cast<int>(StatusCode::kUnimplemented) == grpc::StatusCode::UNIMPLEMENTED);
static_assert(static_cast<int>(StatusCode::kUnauthenticated) == grpc::StatusCode::UNAUTHENTICATED);
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

}  // namespace tsserve::server
