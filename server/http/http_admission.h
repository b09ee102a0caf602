#pragma once
// What the HTTP door decides on a request's header block, before a byte of its body is
// read (httpd's head check): so a request refused costs its headers, not its body, and
// nothing a browser page from another site can send changes the server's state.
//
//   1. Host: with --http-allowed-hosts set, a Host not in it is refused 403 (a page
//      whose DNS name was rebound to this server cannot reach it); health checks pass.
//   2. The token (--auth-token-file), on every route but the open ones
//      (open_without_token): 401 before the body, before any 100-continue.
//   3. A state-changing method (POST, PUT, PATCH, DELETE):
//      - an Origin header that is neither the server's own (scheme://Host) nor allowed by
//        --http-cors-origins is refused 403 (a simple cross-origin form or fetch);
//      - Content-Type must be application/json (or application/octet-stream on an infer
//        with Inference-Header-Content-Length, the binary tensor extension): 415
//        otherwise. A browser sends JSON cross-origin only after a CORS preflight;
//      - repository control (load, unload) is refused 403 unless
//        --http-repository-control is on or a token is set.
// Each refusal is a JSON error naming the header or the option, counted by reason.

#include <optional>
#include <string>
#include <vector>

#include "server/call/service_context.h"
#include "server/http/cors_policy.h"
#include "server/http/http_door_metrics.h"
#include "server/httpd/http_message.h"

namespace tsserve::server {

struct HttpAdmissionOptions {
  bool repository_control = false;  // --http-repository-control
  std::string allowed_hosts;        // --http-allowed-hosts: comma-separated; "" any
};

// Routes that answer without the token: GET /v2/health/live and /v2/health/ready (probes
// carry no secrets), GET /openapi.json, GET or HEAD under /console/ (the console's own
// files; the calls it makes carry the token), and a CORS preflight (browsers send it
// without credentials). Every other request, a 404 included, needs the token.
bool open_without_token(const HttpRequest& head);

class HttpAdmission {
 public:
  // `service`, `cors` and `metrics` (may be null) outlive this object.
  HttpAdmission(const ServiceContext& service, const CorsPolicy& cors, HttpAdmissionOptions options,
                HttpDoorMetrics* metrics);

  // The refusal of `head` (a request without its body), or nullopt to read it whole.
  std::optional<HttpResponse> admit(const HttpRequest& head) const;

 private:
  std::optional<HttpResponse> refuse(HttpRefusal reason, HttpResponse response) const;
  bool host_allowed(const HttpRequest& head) const;
  bool origin_allowed(const HttpRequest& head) const;

  const ServiceContext& service_;
  const CorsPolicy& cors_;
  const bool repository_control_;
  std::vector<std::string> allowed_hosts_;  // lower-case; empty: any
  HttpDoorMetrics* const metrics_;
};

}  // namespace tsserve::server
