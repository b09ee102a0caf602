#include "server/http/http_door.h"

#include <malloc.h>
#include <spdlog/spdlog.h>

#include <exception>
#include <utility>
#include <vector>

#include "server/codec/common/request_id.h"
#include "server/http/http_request_rules.h"
#include "server/httpd/http_status.h"
#include "server/observability/log_text.h"

namespace tsserve::server {
namespace {

HttpServerOptions with_admission(HttpServerOptions options, const HttpAdmission& admission,
                                 HttpDoorMetrics* metrics) {
  options.head_check = [&admission](const HttpRequest& head) { return admission.admit(head); };
  if (metrics != nullptr) {
    options.on_connection_refused = [metrics] {
      metrics->count_refusal(HttpRefusal::kConnections);
    };
  }
  return options;
}

// Whether `request` could hold an I/O thread long: a large body to parse, a model to load
// or unload, an observation (windows, a forecast, flags).
// Bodies over this many bytes give their memory back to the system once handled.
constexpr std::size_t kTrimAfterBody = std::size_t{1} << 20;

bool runs_long(const HttpRequest& request, const RequestPath& split) {
  if (request.body.size() > kLargeHttpBody) return true;
  if (!split.parsed.ok()) return false;
  const std::vector<std::string>& path = split.segments;
  const std::size_t n = path.size();
  return (n == 5 && path[0] == "v2" && path[1] == "repository" && path[2] == "models") ||
         (n == 4 && path[0] == "v1" && path[1] == "series" && path[3] == "observe");
}

}  // namespace

HttpDoor::HttpDoor(const HttpServerOptions& options, const ServiceContext& service,
                   const OipServerInfo& server, const HttpDoorOptions& door)
    : service_(service),
      oip_(service, server),
      forecasts_(service),
      console_(door.console, door.console_sample),
      cors_(door.cors_origins),
      metrics_(service.metrics != nullptr
                   ? std::make_unique<HttpDoorMetrics>(*service.metrics->registry())
                   : nullptr),
      admission_(service_, cors_, door.admission, metrics_.get()),
      work_(options.threads > 0 ? options.threads : 1),
      server_(with_admission(options, admission_, metrics_.get()),
              [this](HttpRequest&& request, HttpResponder respond) {
                handle(std::move(request), std::move(respond));
              }) {}

void HttpDoor::handle(HttpRequest&& request, HttpResponder respond) const {
  RequestPath path = split_path(request.path);
  if (runs_long(request, path)) {
    if (request.body.size() > kTrimAfterBody) {
      // glibc keeps what a large request freed (tsserve sets its mmap and trim thresholds
      // high, for the forward's buffers): once the answer is sent, and so the request's
      // copies freed, the free pages go back, so a stream of maximum-size bodies does not
      // hold memory between them (the hostile-input suite measures it).
      respond = [this, inner = std::move(respond)](HttpResponse response) {
        inner(std::move(response));
        work_.post([] { ::malloc_trim(0); });
      };
    }
    struct Held {
      HttpRequest request;
      RequestPath path;
    };
    auto held = std::make_shared<Held>(Held{std::move(request), std::move(path)});
    work_.post(
        [this, held, respond = std::move(respond)] { serve(held->request, held->path, respond); });
    return;
  }
  serve(request, path, std::move(respond));
}

void HttpDoor::serve(HttpRequest& request, const RequestPath& path, HttpResponder respond) const {
  // The server's responder sends only its first answer, so a route that answered and
  // then threw keeps its answer; a copy, since the route may move `respond` away.
  const HttpResponder fallback = respond;
  try {
    route(request, path, respond);
    return;
  } catch (const std::exception& e) {
    const std::string id = generate_request_id();
    spdlog::error("HTTP {} request {} failed: {}", log_text(request.method), id,
                  log_text(e.what()));
    if (metrics_) metrics_->count_failure();
    fallback(error_response(
        {StatusCode::kInternal, "the server failed on this request; its log names request " + id}));
  } catch (...) {
    const std::string id = generate_request_id();
    spdlog::error("HTTP {} request {} failed: an unknown exception", log_text(request.method), id);
    if (metrics_) metrics_->count_failure();
    fallback(error_response(
        {StatusCode::kInternal, "the server failed on this request; its log names request " + id}));
  }
}

void HttpDoor::route(HttpRequest& request, const RequestPath& path, HttpResponder& respond) const {
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
  const std::string* api = path.segments.empty() ? nullptr : &path.segments.front();
  if (api != nullptr && *api == "v2") return oip_.route(request, path, respond);
  if ((api != nullptr && *api == "v1") || request.path == "/openapi.json") {
    return forecasts_.route(request, path, respond);
  }
  if (console_.route(request, respond)) return;
  respond(error_response(
      {StatusCode::kNotFound, "the path: \"" + request.path +
                                  "\" is not served; the JSON API is under /v1 (its OpenAPI "
                                  "document at /openapi.json), the Open Inference Protocol's "
                                  "REST binding under /v2, the console at /console/"}));
}

}  // namespace tsserve::server
