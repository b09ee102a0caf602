#include "server/http/oip_rest_routes.h"

#include <memory>
#include <utility>
#include <vector>

#include "server/codec/oip_rest/oip_json_request.h"
#include "server/codec/oip_rest/oip_json_response.h"
#include "server/http/http_call.h"
#include "server/http/http_request_rules.h"
#include "server/httpd/http_status.h"
#include "server/service/model_infer_codec.h"
#include "server/service/model_route.h"

namespace tsserve::server {
namespace {

constexpr auto kNoDeadline = std::chrono::steady_clock::time_point::max();

HttpResponse not_found(const std::string& path) {
  return error_response(
      {StatusCode::kNotFound, "the path: \"" + path +
                                  "\" is not served; the REST binding serves /v2, /v2/health/live, "
                                  "/v2/health/ready, /v2/models/M[/versions/V][/ready|/infer]"});
}

HttpResponse wrong_method(const HttpRequest& request, const char* allowed) {
  HttpResponse response = error_response(invalid_argument(
      "the method: " + request.method + " " + request.path + "; this path takes " + allowed));
  response.status = 405;
  response.headers.emplace_back("Allow", allowed);
  return response;
}

// One answer made on the spot (no batcher): `answer` fills `*response` and says how the
// call ends; a call that is not a health check shows its token first.
template <typename Answer>
void answer_now(const ServiceContext& service, const HttpRequest& request, HttpResponder respond,
                Method method, bool needs_token, Answer answer) {
  auto response = std::make_shared<HttpResponse>();
  const auto call = HttpCall::start(
      service.metrics, method, kNoDeadline, std::move(respond), [response](const Status& status) {
        return status.ok() ? std::move(*response) : error_response(status);
      });
  call->end([&]() -> Status {
    if (needs_token) TSSERVE_RETURN_IF_ERROR(authenticate_http(service, request));
    return answer(*call, response.get());
  });
}

// What a REST inference call owns for as long as it runs: the request it decoded and the
// response the batcher's worker writes (BatchedCall keeps pointers to both).
struct InferExchange {
  inference::ModelInferRequest request;
  inference::ModelInferResponse response;
};

}  // namespace

OipRestRoutes::OipRestRoutes(ServiceContext service, OipServerInfo server)
    : service_(std::move(service)),
      server_(std::move(server)),
      infer_{Method::kModelInfer, &ModelVersion::forecast_batcher, service_.metrics} {}

bool OipRestRoutes::route(HttpRequest& request, HttpResponder& respond) const {
  std::vector<std::string> path;
  const Status parsed = path_segments(request.path, &path);
  if (path.empty() || path[0] != "v2") return false;
  // Answers `response` and reports the request routed.
  const auto answer = [&respond](HttpResponse response) {
    respond(std::move(response));
    return true;
  };
  if (!parsed.ok()) return answer(error_response(parsed));
  const bool get = request.method == "GET";
  const std::size_t n = path.size();

  if (n == 1) {
    if (!get) return answer(wrong_method(request, "GET"));
    answer_now(service_, request, respond, Method::kServerMetadata, true,
               [&](CallEnding&, HttpResponse* out) {
                 inference::ServerMetadataResponse metadata;
                 TSSERVE_RETURN_IF_ERROR(answer_server_metadata(server_, {}, &metadata));
                 *out = json_response(oip_json_server_metadata(metadata));
                 return Status();
               });
    return true;
  }
  if (n == 3 && path[1] == "health" && (path[2] == "live" || path[2] == "ready")) {
    if (!get) return answer(wrong_method(request, "GET"));
    if (path[2] == "live") {
      answer_now(service_, request, respond, Method::kServerLive, false,
                 [&](CallEnding&, HttpResponse* out) {
                   inference::ServerLiveResponse live;
                   TSSERVE_RETURN_IF_ERROR(answer_server_live(&live));
                   *out = json_response(oip_json_server_live(live));
                   return Status();
                 });
    } else {
      answer_now(service_, request, respond, Method::kServerReady, false,
                 [&](CallEnding&, HttpResponse* out) {
                   inference::ServerReadyResponse ready;
                   TSSERVE_RETURN_IF_ERROR(answer_server_ready(service_, &ready));
                   // A readiness probe reads the status code.
                   *out = json_response(oip_json_server_ready(ready), ready.ready() ? 200 : 503);
                   return Status();
                 });
    }
    return true;
  }
  if (n >= 3 && path[1] == "models") {
    // models/M, models/M/versions/V, then nothing, "ready" or "infer".
    const std::string& model = path[2];
    std::string version;
    std::size_t next = 3;
    if (n >= 5 && path[3] == "versions") {
      version = path[4];
      next = 5;
    }
    const std::string action = next < n ? path[next] : "";
    if (next + 1 < n || (next < n && action != "ready" && action != "infer")) {
      return answer(not_found(request.path));
    }
    if (action == "infer") {
      if (request.method != "POST") return answer(wrong_method(request, "POST"));
      infer(request, std::move(respond), model, version);
      return true;
    }
    if (!get) return answer(wrong_method(request, "GET"));
    if (action == "ready") {
      answer_now(service_, request, respond, Method::kModelReady, true,
                 [&](CallEnding& call, HttpResponse* out) {
                   inference::ModelReadyRequest ask;
                   ask.set_name(model);
                   ask.set_version(version);
                   inference::ModelReadyResponse ready;
                   TSSERVE_RETURN_IF_ERROR(answer_model_ready(service_, ask, call, &ready));
                   *out =
                       json_response(oip_json_model_ready(model, ready), ready.ready() ? 200 : 503);
                   return Status();
                 });
    } else {
      answer_now(service_, request, respond, Method::kModelMetadata, true,
                 [&](CallEnding& call, HttpResponse* out) {
                   inference::ModelMetadataRequest ask;
                   ask.set_name(model);
                   ask.set_version(version);
                   inference::ModelMetadataResponse metadata;
                   TSSERVE_RETURN_IF_ERROR(answer_model_metadata(service_, ask, call, &metadata));
                   *out = json_response(oip_json_model_metadata(metadata));
                   return Status();
                 });
    }
    return true;
  }
  return answer(not_found(request.path));
}

void OipRestRoutes::infer(HttpRequest& request, HttpResponder respond, const std::string& model,
                          const std::string& version) const {
  auto exchange = std::make_shared<InferExchange>();
  std::chrono::steady_clock::time_point deadline = kNoDeadline;
  // Who asks comes first, then what the headers say, then the body.
  Status admitted = authenticate_http(service_, request);
  bool unsupported_media = false;
  if (admitted.ok()) {
    admitted = check_content_type(request, "application/json");
    unsupported_media = !admitted.ok();
  }
  if (admitted.ok()) admitted = request_deadline(request, &deadline);
  const auto call =
      HttpCall::start(service_.metrics, Method::kModelInfer, deadline, std::move(respond),
                      [exchange, unsupported_media](const Status& status) {
                        if (status.ok())
                          return json_response(oip_json_infer_response(exchange->response));
                        HttpResponse response = error_response(status);
                        if (unsupported_media) response.status = 415;
                        return response;
                      });
  if (admitted.ok()) admitted = parse_oip_json_request(request.body, &exchange->request);
  if (!admitted.ok()) {
    call->end(admitted);
    return;
  }
  exchange->request.set_model_name(model);
  exchange->request.set_model_version(version);
  BatchedCall<ModelInferCodec>::start(
      infer_, call, exchange->request, &exchange->response,
      route_call(service_, Status(), model, version, "model_name", "model_version"));
}

}  // namespace tsserve::server
