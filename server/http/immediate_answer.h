#pragma once
// Answers every HTTP route makes on the spot (no batcher): one call's metrics and error
// body through an HttpCall, and the 405 of a wrong method.

#include <chrono>
#include <memory>
#include <utility>

#include "server/http/http_call.h"
#include "server/http/http_request_rules.h"
#include "server/httpd/http_status.h"

namespace tsserve::server {

// `answer` fills `*response` and says how the call ends; a call that is not a health
// check (`needs_token`) shows its token first. Errors become {"error": "..."}.
template <typename Answer>
void answer_now(const ServiceContext& service, const HttpRequest& request, HttpResponder respond,
                Method method, bool needs_token, Answer answer) {
  auto response = std::make_shared<HttpResponse>();
  const auto call =
      HttpCall::start(service.metrics, method, std::chrono::steady_clock::time_point::max(),
                      request, std::move(respond), [response](const Status& status) {
                        return status.ok() ? std::move(*response) : error_response(status);
                      });
  call->end([&]() -> Status {
    if (needs_token) TSSERVE_RETURN_IF_ERROR(authenticate_http(service, request));
    return answer(*call, response.get());
  });
}

// 405 with the Allow header: `allowed` is the one method the path takes.
inline HttpResponse wrong_method(const HttpRequest& request, const char* allowed) {
  HttpResponse response = error_response(invalid_argument(
      "the method: " + request.method + " " + request.path + "; this path takes " + allowed));
  response.status = 405;
  response.headers.emplace_back("Allow", allowed);
  return response;
}

}  // namespace tsserve::server
