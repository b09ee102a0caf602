#pragma once
// gRPC status codes by their canonical names ("INVALID_ARGUMENT"), as the gRPC docs,
// Prometheus labels and other tools spell them. Codes are ints (grpc::StatusCode converts
// with static_cast<int>), so that a library without gRPC headers can name them.

namespace tsserve {

// Codes 0 (OK) .. 16 (UNAUTHENTICATED): the fixed set of the gRPC protocol.
inline constexpr int kStatusCodeCount = 17;

// The canonical name of `code`; "UNKNOWN" for a code outside 0 .. 16, as gRPC itself
// treats a status code it does not know. Never null; the string is static.
const char* status_code_name(int code);

}  // namespace tsserve
