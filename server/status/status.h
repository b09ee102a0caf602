#pragma once
// The server's error convention below the protocols: a Status is a code and a message
// that names the field or the thing and says what was expected. Code decides, the message
// explains: a caller that must tell errors apart switches on code(), never on the text.
//
// The codes are gRPC's canonical ones (same names and numbers), the vocabulary both
// protocols' answers are made from; grpc/status_mapping.h turns a Status into a
// grpc::Status at the boundary. Exceptions stay inside the model library (ModelError) and
// are caught where a version loads.

#include <ostream>
#include <string>
#include <utility>

#include "tsserve/status/status_code_names.h"

namespace tsserve::server {

enum class StatusCode {
  kOk = 0,
  kCancelled = 1,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kUnauthenticated = 16,
};

// "INVALID_ARGUMENT (3)", for logs and test failures.
inline std::ostream& operator<<(std::ostream& out, StatusCode code) {
  return out << status_code_name(static_cast<int>(code)) << " (" << static_cast<int>(code) << ")";
}

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// The request broke a rule; `message` names the field and the expectation.
inline Status invalid_argument(std::string message) {
  return {StatusCode::kInvalidArgument, std::move(message)};
}

}  // namespace tsserve::server

// Returns the status of `expr` from the enclosing function unless it is OK. For any status
// type with ok() (Status, grpc::Status).
#define TSSERVE_RETURN_IF_ERROR(expr)                  \
  do {                                                 \
    auto tsserve_status_ = (expr);                     \
    if (!tsserve_status_.ok()) return tsserve_status_; \
  } while (false)
