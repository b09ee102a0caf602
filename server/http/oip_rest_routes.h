#pragma once
// The Open Inference Protocol's REST binding (inference_rest.md, open_inference_rest.yaml
// in docs/specs/), over the same parts as its gRPC binding: the answers are
// call/oip_answers.h's, an inference request becomes the same ModelInferRequest
// (codec/oip_rest) and joins the same batcher through the same BatchedCall, so a forecast
// is bitwise the same whichever door it came through.
//
//   GET  /v2                                      server metadata
//   GET  /v2/health/live                          200 {"live": true} (no token needed)
//   GET  /v2/health/ready                         200 {"ready": true}, 503 while not serving
//   GET  /v2/models/M[/versions/V]                model metadata
//   GET  /v2/models/M[/versions/V]/ready          200 {"name", "ready": true}, 503 not ready
//   POST /v2/models/M[/versions/V]/infer          inference (Content-Type application/json)
//   POST /v2/repository/index                     the versions known and their states
//   POST /v2/repository/models/M/load|unload      (re)load or unload a model
//                                                 (codec/oip_rest/oip_json_repository.h)
//
// The binary tensor extension (codec/oip_rest/oip_binary_tensors.h): with
// `Inference-Header-Content-Length: N` the body is N bytes of JSON then the inputs' raw
// bytes (Content-Type application/json or application/octet-stream); outputs asked for as
// binary come back after the JSON answer, whose length the answer's
// Inference-Header-Content-Length gives (Content-Type application/octet-stream).
//
// Every call but the health checks needs `Authorization: Bearer <token>` when a token is
// configured. A request may bound its wait with `Request-Timeout-Ms: N` (as gRPC's
// deadline: a request still queued then is answered 504 and not computed). Errors are
// {"error": "..."} with http_status.h's status.
//
// Thread safety: route() may be called from any thread; members are constant.

#include <string>
#include <vector>

#include "server/call/batched_call.h"
#include "server/call/oip_answers.h"
#include "server/call/service_context.h"
#include "server/http/http_request_rules.h"
#include "server/httpd/http_message.h"

namespace tsserve::server {

class OipRestRoutes {
 public:
  OipRestRoutes(ServiceContext service, OipServerInfo server);

  // Answers `request`, whose path (split once by the door) is /v2 or under it.
  void route(HttpRequest& request, const RequestPath& path, HttpResponder& respond) const;

 private:
  void repository(HttpRequest& request, HttpResponder& respond,
                  const std::vector<std::string>& path) const;
  void infer(HttpRequest& request, HttpResponder respond, const std::string& model,
             const std::string& version) const;

  const ServiceContext service_;
  const OipServerInfo server_;
  const BatchedMethod infer_;  // joins the version's forecast batcher, as gRPC's ModelInfer
};

}  // namespace tsserve::server
