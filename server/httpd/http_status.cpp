#include "server/httpd/http_status.h"

#include "server/codec/json/json_writer.h"

namespace tsserve::server {

int http_status_of(StatusCode code) {
  switch (static_cast<int>(code)) {
    case 0:  // OK
      return 200;
    case 1:  // CANCELLED
      return 499;
    case 3:   // INVALID_ARGUMENT
    case 9:   // FAILED_PRECONDITION
    case 11:  // OUT_OF_RANGE
      return 400;
    case 4:  // DEADLINE_EXCEEDED
      return 504;
    case 5:  // NOT_FOUND
      return 404;
    case 6:   // ALREADY_EXISTS
    case 10:  // ABORTED
      return 409;
    case 7:  // PERMISSION_DENIED
      return 403;
    case 8:  // RESOURCE_EXHAUSTED
      return 429;
    case 12:  // UNIMPLEMENTED
      return 501;
    case 14:  // UNAVAILABLE
      return 503;
    case 16:  // UNAUTHENTICATED
      return 401;
    default:  // UNKNOWN, INTERNAL, DATA_LOSS
      return 500;
  }
}

HttpResponse error_response(const Status& status) {
  HttpResponse response;
  response.status = http_status_of(status.code());
  response.body = json_error_body(status.message());
  if (response.status == 401) response.headers.emplace_back("WWW-Authenticate", "Bearer");
  if (response.status == 503 || response.status == 429) {
    response.headers.emplace_back("Retry-After", "1");
  }
  return response;
}

HttpResponse json_response(std::string body, int status) {
  HttpResponse response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

}  // namespace tsserve::server
