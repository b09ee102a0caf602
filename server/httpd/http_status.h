#pragma once
// A Status as an HTTP answer: the code as the HTTP status Google's API design gives each
// gRPC code (the mapping grpc-gateway and Envoy's transcoder use), the message in the Open
// Inference Protocol's error body {"error": "..."}.
//
//   OK 200, INVALID_ARGUMENT / FAILED_PRECONDITION / OUT_OF_RANGE 400, UNAUTHENTICATED 401,
//   PERMISSION_DENIED 403, NOT_FOUND 404, ALREADY_EXISTS / ABORTED 409,
//   RESOURCE_EXHAUSTED 429, CANCELLED 499, UNIMPLEMENTED 501, UNAVAILABLE 503,
//   DEADLINE_EXCEEDED 504, anything else 500.

#include "server/httpd/http_message.h"
#include "server/status/status.h"

namespace tsserve::server {

int http_status_of(StatusCode code);

// The error answer for `status` (REQUIRES: not OK). A 401 carries
// `WWW-Authenticate: Bearer` (RFC 6750); a 503 and a 429 `Retry-After: 1`.
HttpResponse error_response(const Status& status);

// A JSON answer with status 200.
HttpResponse json_response(std::string body, int status = 200);

}  // namespace tsserve::server
