#include "server/http/http_door.h"

#include "server/http/http_status.h"

namespace tsserve::server {

HttpDoor::HttpDoor(const HttpServerOptions& options, const ServiceContext& service,
                   const OipServerInfo& server)
    : oip_(service, server), server_(options, [this](HttpRequest&& request, HttpResponder respond) {
        handle(std::move(request), std::move(respond));
      }) {}

void HttpDoor::handle(HttpRequest&& request, HttpResponder respond) const {
  if (oip_.route(request, respond)) return;
  respond(error_response(
      {StatusCode::kNotFound, "the path: \"" + request.path +
                                  "\" is not served; the Open Inference Protocol's REST binding is "
                                  "under /v2"}));
}

}  // namespace tsserve::server
