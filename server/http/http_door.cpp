#include "server/http/http_door.h"

#include "server/httpd/http_status.h"

namespace tsserve::server {

HttpDoor::HttpDoor(const HttpServerOptions& options, const ServiceContext& service,
                   const OipServerInfo& server, const HttpDoorOptions& door)
    : oip_(service, server),
      forecasts_(service),
      console_(door.console, door.console_sample),
      cors_(door.cors_origins),
      server_(options, [this](HttpRequest&& request, HttpResponder respond) {
        handle(std::move(request), std::move(respond));
      }) {}

void HttpDoor::handle(HttpRequest&& request, HttpResponder respond) const {
  if (cors_.enabled()) {
    if (auto preflight = cors_.preflight(request)) return respond(std::move(*preflight));
    auto headers = cors_.answer_headers(request);
    if (!headers.empty()) {
      respond = [inner = std::move(respond), headers = std::move(headers)](HttpResponse response) {
        response.headers.insert(response.headers.end(), headers.begin(), headers.end());
        inner(std::move(response));
      };
    }
  }
  if (oip_.route(request, respond) || forecasts_.route(request, respond) ||
      console_.route(request, respond)) {
    return;
  }
  respond(error_response(
      {StatusCode::kNotFound, "the path: \"" + request.path +
                                  "\" is not served; the JSON API is under /v1 (its OpenAPI "
                                  "document at /openapi.json), the Open Inference Protocol's "
                                  "REST binding under /v2, the console at /console/"}));
}

}  // namespace tsserve::server
