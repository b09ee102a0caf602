#include "server/http/oip_rest_routes.h"

#include <charconv>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "server/call/model_infer_codec.h"
#include "server/call/model_listing.h"
#include "server/call/model_route.h"
#include "server/codec/oip_rest/oip_binary_tensors.h"
#include "server/codec/oip_rest/oip_json_repository.h"
#include "server/codec/oip_rest/oip_json_response.h"
#include "server/http/http_call.h"
#include "server/http/http_request_rules.h"
#include "server/http/immediate_answer.h"
#include "server/httpd/http_status.h"

namespace tsserve::server {
namespace {

constexpr auto kNoDeadline = std::chrono::steady_clock::time_point::max();
constexpr char kHeaderLengthHeader[] = "Inference-Header-Content-Length";

HttpResponse not_found(const std::string& path) {
  return error_response(
      {StatusCode::kNotFound, "the path: \"" + path +
                                  "\" is not served; the REST binding serves /v2, /v2/health/live, "
                                  "/v2/health/ready, /v2/models/M[/versions/V][/ready|/infer], "
                                  "/v2/repository/index, /v2/repository/models/M/load|unload"});
}

// What a REST inference call owns for as long as it runs: the request it decoded and the
// response the batcher's worker writes (BatchedCall keeps pointers to both).
struct InferExchange {
  OipRestRequest request;
  inference::ModelInferResponse response;
};

// The answer of a successful inference: JSON, or JSON then the binary outputs' bytes.
HttpResponse infer_answer(const InferExchange& exchange) {
  OipRestAnswer answer = write_oip_rest_answer(exchange.request, exchange.response);
  HttpResponse response = json_response(std::move(answer.body));
  if (answer.header_length != response.body.size()) {
    response.content_type = "application/octet-stream";
    response.headers.emplace_back(kHeaderLengthHeader, std::to_string(answer.header_length));
  }
  return response;
}

}  // namespace

OipRestRoutes::OipRestRoutes(ServiceContext service, OipServerInfo server)
    : service_(std::move(service)),
      server_(std::move(server)),
      infer_{Method::kModelInfer, &ModelVersion::forecast_batcher, service_.metrics} {}

void OipRestRoutes::route(HttpRequest& request, const RequestPath& split,
                          HttpResponder& respond) const {
  const std::vector<std::string>& path = split.segments;
  const auto answer = [&respond](HttpResponse response) { respond(std::move(response)); };
  if (!split.parsed.ok()) return answer(error_response(split.parsed));
  const bool get = request.method == "GET";
  const std::size_t n = path.size();

  if (n == 1) {
    if (!get) return answer(wrong_method(request, "GET"));
    answer_now(service_, request, respond, Method::kServerMetadata, true,
               [&](CallEnding&, HttpResponse* out) {
                 inference::ServerMetadataResponse metadata;
                 // Triton's names for the binary tensor extension (oip_binary_tensors.h)
                 // and the repository's (oip_json_repository.h).
                 TSSERVE_RETURN_IF_ERROR(answer_server_metadata(
                     server_, {"binary_tensor_data", "model_repository"}, &metadata));
                 *out = json_response(oip_json_server_metadata(metadata));
                 return Status();
               });
    return;
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
    return;
  }
  if (n >= 3 && path[1] == "repository") {
    if (request.method != "POST") return answer(wrong_method(request, "POST"));
    repository(request, respond, path);
    return;
  }
  ModelPath target;
  if (parse_model_path(path, 1, &target)) {
    // models/M, models/M/versions/V, then nothing, "ready" or "infer".
    const std::string& model = target.model;
    const std::string& version = target.version;
    const std::string& action = target.action;
    if (!action.empty() && action != "ready" && action != "infer") {
      return answer(not_found(request.path));
    }
    if (action == "infer") {
      if (request.method != "POST") return answer(wrong_method(request, "POST"));
      infer(request, std::move(respond), model, version);
      return;
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
    return;
  }
  return answer(not_found(request.path));
}

void OipRestRoutes::repository(HttpRequest& request, HttpResponder& respond,
                               const std::vector<std::string>& path) const {
  const std::size_t n = path.size();
  if (n == 3 && path[2] == "index") {
    answer_now(service_, request, respond, Method::kRepositoryIndex, true,
               [&](CallEnding&, HttpResponse* out) -> Status {
                 bool ready_only = false;
                 TSSERVE_RETURN_IF_ERROR(parse_repository_index_request(request.body, &ready_only));
                 *out = json_response(
                     oip_json_repository_index(list_models(*service_.repository), ready_only));
                 return Status();
               });
    return;
  }
  if (n != 5 || path[2] != "models" || (path[4] != "load" && path[4] != "unload")) {
    respond(not_found(request.path));
    return;
  }
  const std::string& model = path[3];
  if (path[4] == "load") {
    answer_now(service_, request, respond, Method::kRepositoryModelLoad, true,
               [&](CallEnding&, HttpResponse* out) -> Status {
                 TSSERVE_RETURN_IF_ERROR(check_repository_load_body(request.body));
                 inference::RepositoryModelLoadRequest ask;
                 ask.set_model_name(model);
                 inference::RepositoryModelLoadResponse loaded;
                 TSSERVE_RETURN_IF_ERROR(answer_model_load(service_, ask, &loaded));
                 *out = json_response(oip_json_repository_action(model, "load"));
                 return Status();
               });
  } else {
    answer_now(service_, request, respond, Method::kRepositoryModelUnload, true,
               [&](CallEnding&, HttpResponse* out) -> Status {
                 TSSERVE_RETURN_IF_ERROR(check_repository_load_body(request.body));
                 inference::RepositoryModelUnloadRequest ask;
                 ask.set_model_name(model);
                 inference::RepositoryModelUnloadResponse unloaded;
                 TSSERVE_RETURN_IF_ERROR(answer_model_unload(service_, ask, &unloaded));
                 *out = json_response(oip_json_repository_action(model, "unload"));
                 return Status();
               });
  }
}

void OipRestRoutes::infer(HttpRequest& request, HttpResponder respond, const std::string& model,
                          const std::string& version) const {
  auto exchange = std::make_shared<InferExchange>();
  std::chrono::steady_clock::time_point deadline = kNoDeadline;
  std::optional<std::size_t> header_length;
  // Who asks comes first, then what the headers say, then the body.
  Status admitted = authenticate_http(service_, request);
  if (admitted.ok()) admitted = inference_header_length(request, &header_length);
  bool unsupported_media = false;
  if (admitted.ok()) {
    // With the binary extension the body is not JSON alone.
    admitted = check_content_type(request, "application/json");
    if (!admitted.ok() && header_length) {
      admitted = check_content_type(request, "application/octet-stream");
    }
    unsupported_media = !admitted.ok();
  }
  if (admitted.ok()) admitted = request_deadline(request, &deadline);
  const auto call =
      HttpCall::start(service_.metrics, Method::kModelInfer, deadline, request, std::move(respond),
                      [exchange, unsupported_media](const Status& status) {
                        if (status.ok()) return infer_answer(*exchange);
                        HttpResponse response = error_response(status);
                        if (unsupported_media) response.status = 415;
                        return response;
                      });
  // The model before the body: a body for a model not served is not worth its parse.
  ModelRoute route;
  if (admitted.ok()) {
    route = route_call(service_, Status(), model, version, "model_name", "model_version");
    admitted = route.status;
  }
  if (admitted.ok()) {
    admitted = parse_oip_rest_request(request.body, header_length, &exchange->request);
  }
  if (!admitted.ok()) {
    call->end(admitted);
    return;
  }
  inference::ModelInferRequest& message = exchange->request.message;
  message.set_model_name(model);
  message.set_model_version(version);
  BatchedCall<ModelInferCodec>::start(infer_, call, message, &exchange->response, std::move(route));
}

}  // namespace tsserve::server
