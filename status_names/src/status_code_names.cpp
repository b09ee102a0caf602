#include "tsserve/status/status_code_names.h"

#include <array>

namespace tsserve {
namespace {

// Indexed by code, in the order of grpc::StatusCode (grpcpp/support/status_code_enum.h).
constexpr std::array<const char*, kStatusCodeCount> kNames = {
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
};
constexpr int kUnknown = 2;

}  // namespace

const char* status_code_name(int code) {
  if (code < 0 || code >= kStatusCodeCount) code = kUnknown;
  return kNames[static_cast<std::size_t>(code)];
}

}  // namespace tsserve
