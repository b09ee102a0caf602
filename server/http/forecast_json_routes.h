#pragma once
// The forecasting JSON API for people (docs/api/openapi.json, served at GET /openapi.json),
// over the same parts as tsserve.v1 on gRPC: a forecast becomes the same ForecastRequest
// (codec/v1_json) and joins the same batcher through the same BatchedCall and codec, so
// it is bitwise the forecast every other door returns.
//
//   GET  /v1/models                                 the models and their versions
//   GET  /v1/models/M[/versions/V]                  one version's info
//   POST /v1/models/M[/versions/V]/forecast         a forecast by column
//   POST /v1/actuals                                report what happened, to score forecasts
//   POST /v1/series/K/observe                       a live series' new points (Observe)
//   GET  /openapi.json                              the OpenAPI 3.1 document of all this
//
// Every call but /openapi.json needs `Authorization: Bearer <token>` when a token is
// configured; `Request-Timeout-Ms` bounds a forecast's wait; errors are {"error": "..."}
// with http_status.h's status, as on /v2.
//
// Thread safety: route() may be called from any thread; members are constant.

#include <string>

#include "server/call/batched_call.h"
#include "server/call/service_context.h"
#include "server/http/http_request_rules.h"
#include "server/httpd/http_message.h"

namespace tsserve::server {

class ForecastJsonRoutes {
 public:
  explicit ForecastJsonRoutes(ServiceContext service);

  // Answers `request`, whose path (split once by the door) is /v1, under it, or
  // /openapi.json.
  void route(HttpRequest& request, const RequestPath& path, HttpResponder& respond) const;

 private:
  void report_actuals(HttpRequest& request, HttpResponder respond) const;
  void forecast(HttpRequest& request, HttpResponder respond, const std::string& model,
                const std::string& version) const;
  void observe(HttpRequest& request, HttpResponder respond, const std::string& series_key) const;

  const ServiceContext service_;
  const BatchedMethod forecast_;  // joins the version's forecast batcher, as gRPC's Forecast
};

}  // namespace tsserve::server
