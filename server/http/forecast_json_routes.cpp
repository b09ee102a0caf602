#include "server/http/forecast_json_routes.h"

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "server/call/keeping_forecast_codec.h"
#include "server/call/model_listing.h"
#include "server/call/model_route.h"
#include "server/call/observe_call.h"
#include "server/call/v1_answers.h"
#include "server/codec/v1_json/actuals_json.h"
#include "server/codec/v1_json/forecast_json_request.h"
#include "server/codec/v1_json/forecast_json_response.h"
#include "server/codec/v1_json/model_info_json.h"
#include "server/codec/v1_json/observe_json.h"
#include "server/http/accuracy_json.h"
#include "server/http/immediate_answer.h"
#include "server/http/openapi_document.h"

namespace tsserve::server {
namespace {

using JsonForecastCodec = KeepingForecastCodec<ForecastJsonRequest, decode_forecast_json_request>;

HttpResponse not_found(const std::string& path) {
  return error_response({StatusCode::kNotFound,
                         "the path: \"" + path +
                             "\" is not served; the JSON API serves /v1/models, "
                             "/v1/models/M[/versions/V][/forecast], /v1/actuals, /v1/accuracy, "
                             "/v1/series/K/observe (see /openapi.json)"});
}

// What a JSON forecast owns for as long as it runs: the request it decoded and the
// response the batcher's worker writes (BatchedCall keeps pointers to both).
struct ForecastExchange {
  ForecastJsonRequest request;
  v1::ForecastResponse response;
};

// The same for an observation: the response is written by the end that wins the call.
struct ObserveExchange {
  ObserveJsonRequest request;
  v1::ObserveResponse response;
};

// The token, then the Content-Type (application/json): the refusal, if any;
// `*unsupported_media` when it is the media type (answered 415).
Status admit_json_body(const ServiceContext& service, const HttpRequest& request,
                       bool* unsupported_media) {
  TSSERVE_RETURN_IF_ERROR(authenticate_http(service, request));
  const Status media = check_content_type(request, "application/json");
  *unsupported_media = !media.ok();
  return media;
}

HttpResponse refusal(const Status& status, bool unsupported_media) {
  HttpResponse response = error_response(status);
  if (unsupported_media) response.status = 415;
  return response;
}

}  // namespace

ForecastJsonRoutes::ForecastJsonRoutes(ServiceContext service)
    : service_(std::move(service)),
      forecast_{Method::kForecast, &ModelVersion::forecast_batcher, service_.metrics} {}

void ForecastJsonRoutes::route(HttpRequest& request, const RequestPath& split,
                               HttpResponder& respond) const {
  if (request.path == "/openapi.json") {
    if (request.method != "GET") {
      respond(wrong_method(request, "GET"));
    } else {
      HttpResponse document = json_response(std::string(openapi_document()));
      respond(std::move(document));
    }
    return;
  }
  const std::vector<std::string>& path = split.segments;
  const auto answer = [&respond](HttpResponse response) { respond(std::move(response)); };
  if (!split.parsed.ok()) return answer(error_response(split.parsed));
  const bool get = request.method == "GET";
  const std::size_t n = path.size();

  if (n == 2 && path[1] == "actuals") {
    if (request.method != "POST") return answer(wrong_method(request, "POST"));
    report_actuals(request, std::move(respond));
    return;
  }
  if (n == 4 && path[1] == "series" && path[3] == "observe") {
    if (request.method != "POST") return answer(wrong_method(request, "POST"));
    observe(request, std::move(respond), path[2]);
    return;
  }
  if (n == 2 && path[1] == "accuracy") {
    if (!get) return answer(wrong_method(request, "GET"));
    answer_now(service_, request, respond, Method::kGetAccuracy, true,
               [&](CallEnding&, HttpResponse* out) {
                 std::optional<std::vector<VersionAccuracy>> accuracy;
                 if (service_.accuracy != nullptr) accuracy = service_.accuracy->accuracy();
                 *out = json_response(write_accuracy_json(accuracy));
                 return Status();
               });
    return;
  }
  if (n == 2 && path[1] == "models") {
    if (!get) return answer(wrong_method(request, "GET"));
    answer_now(service_, request, respond, Method::kListModels, true,
               [&](CallEnding&, HttpResponse* out) {
                 *out = json_response(write_model_list_json(list_models(*service_.repository)));
                 return Status();
               });
    return;
  }
  ModelPath target;
  if (parse_model_path(path, 1, &target)) {
    // models/M, models/M/versions/V, then nothing or "forecast".
    const std::string& model = target.model;
    const std::string& version = target.version;
    const bool forecasting = target.action == "forecast";
    if (!forecasting && !target.action.empty()) return answer(not_found(request.path));
    if (forecasting) {
      if (request.method != "POST") return answer(wrong_method(request, "POST"));
      forecast(request, std::move(respond), model, version);
      return;
    }
    if (!get) return answer(wrong_method(request, "GET"));
    answer_now(service_, request, respond, Method::kGetModelInfo, true,
               [&](CallEnding& call, HttpResponse* out) -> Status {
                 v1::ModelInfo info;
                 TSSERVE_RETURN_IF_ERROR(answer_model_info(service_, model, version, call, &info));
                 *out = json_response(write_model_info_json(info));
                 return Status();
               });
    return;
  }
  return answer(not_found(request.path));
}

void ForecastJsonRoutes::report_actuals(HttpRequest& request, HttpResponder respond) const {
  auto scored = std::make_shared<v1::ReportActualsResponse>();
  bool unsupported_media = false;
  const Status admitted = admit_json_body(service_, request, &unsupported_media);
  const auto call = HttpCall::start(
      service_.metrics, Method::kReportActuals, std::chrono::steady_clock::time_point::max(),
      request, std::move(respond), [scored, unsupported_media](const Status& status) {
        if (status.ok()) return json_response(write_actuals_json_response(*scored));
        return refusal(status, unsupported_media);
      });
  call->end([&]() -> Status {
    TSSERVE_RETURN_IF_ERROR(admitted);
    v1::ReportActualsRequest report;
    TSSERVE_RETURN_IF_ERROR(parse_actuals_json_request(request.body, &report));
    return answer_report_actuals(service_, report, scored.get());
  });
}

void ForecastJsonRoutes::forecast(HttpRequest& request, HttpResponder respond,
                                  const std::string& model, const std::string& version) const {
  auto exchange = std::make_shared<ForecastExchange>();
  auto deadline = std::chrono::steady_clock::time_point::max();
  // Who asks comes first, then what the headers say, then the body.
  bool unsupported_media = false;
  Status admitted = admit_json_body(service_, request, &unsupported_media);
  if (admitted.ok()) admitted = request_deadline(request, &deadline);
  const auto call = HttpCall::start(
      service_.metrics, Method::kForecast, deadline, request, std::move(respond),
      [exchange, unsupported_media](const Status& status) {
        if (status.ok()) {
          return json_response(write_forecast_json_response(exchange->request, exchange->response));
        }
        return refusal(status, unsupported_media);
      });
  // The model before the body: a body for a model not served is not worth its parse.
  ModelRoute route;
  if (admitted.ok()) {
    route = route_call(service_, Status(), model, version);
    admitted = route.status;
  }
  if (admitted.ok()) admitted = parse_forecast_json_request(request.body, &exchange->request);
  if (!admitted.ok()) {
    call->end(admitted);
    return;
  }
  BatchedCall<JsonForecastCodec>::start(forecast_, call, exchange->request, &exchange->response,
                                        std::move(route), JsonForecastCodec{service_.accuracy});
}

void ForecastJsonRoutes::observe(HttpRequest& request, HttpResponder respond,
                                 const std::string& series_key) const {
  auto exchange = std::make_shared<ObserveExchange>();
  auto deadline = std::chrono::steady_clock::time_point::max();
  bool unsupported_media = false;
  Status admitted = admit_json_body(service_, request, &unsupported_media);
  if (admitted.ok()) admitted = request_deadline(request, &deadline);
  const auto call = HttpCall::start(
      service_.metrics, Method::kObserve, deadline, request, std::move(respond),
      [exchange, unsupported_media](const Status& status) {
        if (status.ok()) {
          return json_response(write_observe_json_response(exchange->request, exchange->response));
        }
        return refusal(status, unsupported_media);
      });
  if (admitted.ok()) {
    admitted = parse_observe_json_request(request.body, series_key, &exchange->request);
  }
  if (admitted.ok()) admitted = check_observe_json_request(&exchange->request);
  if (!admitted.ok()) {
    call->end(admitted);
    return;
  }
  serve_observe(service_, forecast_, call, exchange->request.observation, &exchange->response);
}

}  // namespace tsserve::server
