#pragma once
// tsserve's HTTP door: one HttpServer (httpd/http_server.h) on --http-address answering the
// Open Inference Protocol's REST binding (oip_rest_routes.h, /v2) and the JSON API for
// people (forecast_json_routes.h, /v1 and /openapi.json) over the same services as the
// gRPC door (service_context.h), the browser console's files (console_routes.h, /console/),
// with the CORS policy of --http-cors-origins (cors_policy.h); any other path is 404 with a
// JSON body.
//
// Each request is judged on its headers first (http_admission.h: host, token, origin,
// media type, repository control), before its body is read. Loads, unloads, Observe and
// large bodies run on a pool of their own (http_work_pool.h), not on the I/O threads. A
// request whose handling throws is answered 500 with a request id that its log line
// carries, and counted (tsserve_http_failures_total); the door goes on.
//
// Lifetime: constructed once the models are loaded; a drain first closes connections after
// their answers, then waits for them (bounded); the destructor stops the server's threads
// before the pool and the routes go.

#include <chrono>
#include <memory>
#include <string>

#include "server/http/console_routes.h"
#include "server/http/cors_policy.h"
#include "server/http/forecast_json_routes.h"
#include "server/http/http_admission.h"
#include "server/http/http_door_metrics.h"
#include "server/http/http_request_rules.h"
#include "server/http/http_work_pool.h"
#include "server/http/oip_rest_routes.h"
#include "server/httpd/http_server.h"

namespace tsserve::server {

// What the door serves besides the APIs, and whom it admits.
struct HttpDoorOptions {
  std::string cors_origins;        // --http-cors-origins
  bool console = true;             // --http-console
  std::string console_sample;      // --http-console-sample
  HttpAdmissionOptions admission;  // --http-repository-control, --http-allowed-hosts
};

class HttpDoor {
 public:
  // Throws std::runtime_error saying why `options.address` cannot be served.
  HttpDoor(const HttpServerOptions& options, const ServiceContext& service,
           const OipServerInfo& server, const HttpDoorOptions& door = {});

  int port() const { return server_.port(); }

  // A drain: answers from now on close their connections (calls get 503 from the serving
  // state meanwhile); then waits for every connection to close, at most until `deadline`.
  void begin_drain() { server_.close_connections_after_answers(); }
  bool finish_drain(std::chrono::steady_clock::time_point deadline) {
    return server_.wait_connections_closed(deadline);
  }

 private:
  void handle(HttpRequest&& request, HttpResponder respond) const;
  // Routes `request`, whose path the door split once, answering 500 if that throws.
  void serve(HttpRequest& request, const RequestPath& path, HttpResponder respond) const;
  // The first segment picks the one route that answers: /v2 the OIP's, /v1 the JSON API's.
  void route(HttpRequest& request, const RequestPath& path, HttpResponder& respond) const;

  const ServiceContext service_;
  const OipRestRoutes oip_;
  const ForecastJsonRoutes forecasts_;
  const ConsoleRoutes console_;
  const CorsPolicy cors_;
  const std::unique_ptr<HttpDoorMetrics> metrics_;  // null without server metrics
  const HttpAdmission admission_;
  mutable HttpWorkPool work_;
  HttpServer server_;  // last: destroyed first, so no request reaches a gone route
};

}  // namespace tsserve::server
