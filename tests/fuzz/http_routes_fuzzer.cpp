// Fuzz target: the HTTP door's routes as a request reaches them: method, path (with
// percent-escapes), header fields and body together. The door's head check
// (HttpAdmission::admit, server/http/http_admission.h: Host allow-list, the token, Origin,
// Content-Type, repository control) runs on the request under four configurations (a
// token or none, x repository control on or off; the CORS list and the Host allow-list
// set or not, by the input); a request any of them admits then goes where the routes
// (oip_rest_routes.cpp, forecast_json_routes.cpp) would send it: its headers through the
// route's own checks (check_content_type, request_deadline, Inference-Header-Content-
// Length) and its body through the route's parser (parse_forecast_json_request,
// parse_observe_json_request, parse_actuals_json_request, parse_oip_rest_request,
// parse_repository_index_request, check_repository_load_body).
//
// Input: byte 0 sets the CORS list (bit 0: "https://app.example"; bit 1: "*") and the Host
// allow-list (bit 2: "tsserve.local,127.0.0.1"); then the method (one byte: a known
// method, a lower-case one, or up to 8 bytes of text); then the path (one byte: raw text
// of up to 96 bytes, or 1-7 segments, each a word the routes know or text, percent-escaped
// by bit 7; a trailing slash and a doubled leading one by bits 3 and 4); then up to 8 header
// fields (a name the door reads, or text lower-cased as the server does, and a value from
// that header's dictionary or text); the rest is the body.
//
// Invariants: admit never throws, and a refusal is 401, 403 or 415 with a JSON body; a GET
// of /v2/health/live or /v2/health/ready is never refused; with a token set, a request
// none of whose Authorization fields holds it is admitted only on the open routes (GET
// health, GET /openapi.json, GET or HEAD under /console, a CORS preflight); a
// state-changing method (anything but GET, HEAD, OPTIONS) is admitted only with
// Content-Type application/json (or application/octet-stream on .../infer with
// Inference-Header-Content-Length), from no Origin, an allowed one or the server's own,
// and, on repository load or unload, only with repository control on or a token set; with
// a Host allow-list, only health checks pass without an allowed Host. What admit lets
// through, the route's own Content-Type check accepts. The route's header checks and body
// parsers refuse with INVALID_ARGUMENT and a message, never throw, and a deadline is at
// most a day away. TSSERVE_FUZZ_TRACE=1 prints each configuration's decision.

#include <prometheus/registry.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_input.h"
#include "fuzz_target.h"
#include "server/auth/bearer_token.h"
#include "server/codec/oip_rest/oip_binary_tensors.h"
#include "server/codec/oip_rest/oip_json_repository.h"
#include "server/codec/v1_json/actuals_json.h"
#include "server/codec/v1_json/forecast_json_request.h"
#include "server/codec/v1_json/observe_json.h"
#include "server/http/cors_policy.h"
#include "server/http/http_admission.h"
#include "server/http/http_door_metrics.h"
#include "server/http/http_request_rules.h"

namespace tsserve::fuzz {
namespace {

using server::HttpRequest;
using server::HttpResponse;
using server::Status;

constexpr const char* kToken = "s3cret-token";
constexpr const char* kCorsOrigin = "https://app.example";

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string percent_escaped(const std::string& text) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    out += '%';
    out += hex[c >> 4];
    out += hex[c & 15];
  }
  return out;
}

std::string method_of(FuzzInput& in) {
  const uint8_t choice = in.byte();
  static const char* const kMethods[] = {"GET",   "POST", "HEAD", "OPTIONS", "PUT",  "DELETE",
                                         "PATCH", "get",  "post", "CONNECT", "TRACE"};
  constexpr std::size_t kCount = sizeof kMethods / sizeof kMethods[0];
  if (choice % (kCount + 1) == kCount) return in.text(8);
  return kMethods[choice % (kCount + 1)];
}

std::string path_of(FuzzInput& in) {
  const uint8_t choice = in.byte();
  if (choice % 8 == 7) return in.text(96);
  static const char* const kWords[] = {
      "v1",    "v2",       "health",  "live",         "ready",    "models",         "versions",
      "infer", "forecast", "observe", "series",       "actuals",  "repository",     "index",
      "load",  "unload",   "console", "openapi.json", "accuracy", "patchtst-etth1", "1",
      "",      ".",        ".."};
  constexpr std::size_t kCount = sizeof kWords / sizeof kWords[0];
  std::string path;
  const int segments = 1 + in.byte() % 7;
  for (int i = 0; i < segments; ++i) {
    path += '/';
    const uint8_t word = in.byte();
    const bool escaped = (word & 0x80) != 0;
    const std::size_t index = (word & 0x7f) % (kCount + 1);
    std::string segment = index == kCount ? in.text(24) : kWords[index];
    path += escaped ? percent_escaped(segment) : segment;
  }
  if (choice & 8) path += '/';
  if (choice & 16) path = "/" + path;
  return path;
}

std::pair<std::string, std::string> header_of(FuzzInput& in) {
  struct Header {
    const char* name;
    std::vector<const char*> values;
  };
  static const std::vector<Header> kHeaders = {
      {"authorization",
       {"Bearer s3cret-token", "bearer  s3cret-token ", "Bearer wrong", "s3cret-token",
        "Basic eDp5", "Bearer", "Bearer s3cret-token2", ""}},
      {"content-type",
       {"application/json", "application/json; charset=utf-8", "Application/JSON ", "text/plain",
        "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
        "application/octet-stream", "application/ json", "application/jsonx", ""}},
      {"origin",
       {"https://app.example", "https://evil.example", "http://tsserve.local", "null",
        "HTTPS://TSSERVE.LOCAL:8000", "http://127.0.0.1:8000", ""}},
      {"host",
       {"tsserve.local", "tsserve.local:8000", "127.0.0.1:8000", "[::1]:8000", "TSSERVE.LOCAL",
        "evil.example", "tsserve.local.evil.example", ""}},
      {"inference-header-content-length", {"0", "12", "-1", "99999999999999999999", " 5", ""}},
      {"access-control-request-method", {"POST", "GET", ""}},
      {"request-timeout-ms",
       {"1000", "0", "-5", "9223372036854775807", "99999999999999999999999", "+5", "1e3", ""}},
      {"expect", {"100-continue"}},
  };
  const uint8_t which = in.byte();
  const uint8_t value = in.byte();
  std::string name = which % (kHeaders.size() + 1) == kHeaders.size()
                         ? lower(in.text(16))
                         : kHeaders[which % (kHeaders.size() + 1)].name;
  const Header* known = nullptr;
  for (const Header& header : kHeaders)
    if (name == header.name) known = &header;
  if (known == nullptr || (value & 0x80) != 0) return {name, in.text(48)};
  return {name, known->values[value % known->values.size()]};
}

HttpRequest request_of(FuzzInput& in) {
  HttpRequest request;
  request.method = method_of(in);
  request.path = path_of(in);
  const int headers = in.byte() % 9;
  for (int i = 0; i < headers; ++i) request.headers.push_back(header_of(in));
  request.body = in.rest();
  return request;
}

// What the server says a request is, computed here without the door's code.
struct Facts {
  bool parsed = false;
  std::vector<std::string> path;
  bool get = false, head = false;
  bool changes_state = false;
  bool health = false;
  bool open = false;                // open_without_token, as documented
  bool carries_token = false;       // some Authorization field holds the token
  bool json = false;                // Content-Type application/json (any case, parameters)
  bool binary_infer = false;        // octet-stream on .../infer with a header length
  bool repository_control = false;  // .../repository/models/M/load or unload
  std::optional<std::string> origin, host;
};

// The first value's media type: lower-case, no parameters, no spaces or tabs (the
// fuzzer's own reading, to judge the door's by).
std::string expected_media_type(const HttpRequest& request) {
  const auto given = request.header("content-type");
  if (!given) return "";
  std::string media = lower(std::string(given->substr(0, given->find(';'))));
  media.erase(
      std::remove_if(media.begin(), media.end(), [](char c) { return c == ' ' || c == '\t'; }),
      media.end());
  return media;
}

Facts facts_of(const HttpRequest& request) {
  Facts f;
  f.parsed = server::path_segments(request.path, &f.path).ok();
  const auto& p = f.path;
  const std::size_t n = p.size();
  f.get = request.method == "GET";
  f.head = request.method == "HEAD";
  f.changes_state = !(f.get || f.head || request.method == "OPTIONS");
  f.health =
      f.parsed && n == 3 && p[0] == "v2" && p[1] == "health" && (p[2] == "live" || p[2] == "ready");
  const bool console = request.path == "/console" || request.path.rfind("/console/", 0) == 0;
  f.open = (request.method == "OPTIONS" && request.header("access-control-request-method")) ||
           ((f.get || f.head) && console) || (f.get && request.path == "/openapi.json") ||
           (f.get && f.health);
  for (const auto& [name, value] : request.headers)
    if (name == "authorization" && value.find(kToken) != std::string::npos) f.carries_token = true;
  const std::string media = expected_media_type(request);
  f.json = media == "application/json";
  const bool infer = f.parsed && n >= 4 && p[0] == "v2" && p[1] == "models" && p.back() == "infer";
  f.binary_infer = infer && media == "application/octet-stream" &&
                   request.header("inference-header-content-length").has_value();
  f.repository_control = f.parsed && n == 5 && p[0] == "v2" && p[1] == "repository" &&
                         p[2] == "models" && (p[4] == "load" || p[4] == "unload");
  if (const auto origin = request.header("origin")) f.origin = std::string(*origin);
  if (const auto host = request.header("host")) f.host = std::string(*host);
  return f;
}

bool host_in_allow_list(const std::optional<std::string>& host) {
  if (!host) return false;
  std::string name = lower(*host);
  if (!name.empty() && name.front() == '[') {
    const std::size_t close = name.find(']');
    if (close != std::string::npos) name = name.substr(0, close + 1);
  } else {
    name = name.substr(0, name.find(':'));
  }
  return name == "tsserve.local" || name == "127.0.0.1";
}

bool origin_allowed(const Facts& f, bool cors_listed, bool cors_any) {
  if (!f.origin) return true;
  if (cors_any || (cors_listed && *f.origin == kCorsOrigin)) return true;
  if (!f.host) return false;
  const std::string origin = lower(*f.origin), host = lower(*f.host);
  return origin == "http://" + host || origin == "https://" + host;
}

std::string describe(const HttpRequest& request) {
  std::string out = request.method + " " + request.path;
  for (const auto& [name, value] : request.headers) out += "\n  " + name + ": " + value;
  return out;
}

void check_admission(const std::optional<HttpResponse>& refusal, const HttpRequest& request,
                     const Facts& f, bool token, bool repository_control, bool cors_listed,
                     bool cors_any, bool host_list) {
  const std::string context = describe(request) + "\n  (token " + (token ? "set" : "unset") +
                              ", repository control " + (repository_control ? "on" : "off") +
                              ", host list " + (host_list ? "set" : "unset") + ")";
  if (refusal) {
    FUZZ_CHECK(refusal->status == 401 || refusal->status == 403 || refusal->status == 415,
               "refused " + std::to_string(refusal->status) + ": " + context);
    FUZZ_CHECK(refusal->content_type == "application/json" && !refusal->body.empty() &&
                   refusal->body.front() == '{',
               "a refusal without a JSON body: " + context);
    FUZZ_CHECK(token || refusal->status != 401, "401 with no token set: " + context);
    FUZZ_CHECK(!(f.get && f.health),
               "a GET health check refused " + std::to_string(refusal->status) + ": " + context);
    return;
  }
  FUZZ_CHECK(!token || f.carries_token || f.open,
             "admitted without the token, on a route that needs it: " + context);
  FUZZ_CHECK(!host_list || f.health || host_in_allow_list(f.host),
             "admitted from a Host not in the allow-list: " + context);
  if (!f.changes_state) return;
  FUZZ_CHECK(f.json || f.binary_infer,
             "a state-changing request admitted with Content-Type \"" +
                 std::string(request.header("content-type").value_or("(none)")) + "\": " + context);
  FUZZ_CHECK(origin_allowed(f, cors_listed, cors_any),
             "a state change admitted from another origin: " + context);
  FUZZ_CHECK(!f.repository_control || repository_control || token,
             "repository control admitted with it off and no token: " + context);
  // What admit lets through, the route's own check lets through too (or a request
  // admit accepted would be refused later, after its body was read).
  const bool route_media_ok =
      server::check_content_type(request, "application/json").ok() ||
      (request.header("inference-header-content-length") &&
       server::check_content_type(request, "application/octet-stream").ok());
  FUZZ_CHECK(route_media_ok,
             "admitted, then refused by the route's Content-Type check: " + context);
}

void check_refused(const Status& status, const char* what, const HttpRequest& request) {
  FUZZ_CHECK(status.code() == server::StatusCode::kInvalidArgument && !status.message().empty(),
             std::string(what) + " refused with code " +
                 std::to_string(static_cast<int>(status.code())) + ": " + status.message() +
                 "\n  " + describe(request));
}

void check_deadline(const HttpRequest& request) {
  const auto before = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point deadline;
  const Status status = server::request_deadline(request, &deadline);
  if (!status.ok()) return check_refused(status, "request_deadline", request);
  if (deadline == std::chrono::steady_clock::time_point::max()) {
    FUZZ_CHECK(!request.header("request-timeout-ms"), "a Request-Timeout-Ms with no deadline");
    return;
  }
  FUZZ_CHECK(deadline > before, "a deadline in the past: " + describe(request));
  FUZZ_CHECK(deadline <= std::chrono::steady_clock::now() +
                             std::chrono::milliseconds(server::kMaxRequestTimeoutMs),
             "a deadline more than a day away: " + describe(request));
}

// The route's own header checks and its body parser, for a POST the routes would parse.
void route_body(const HttpRequest& request, const Facts& f) {
  if (!f.parsed || request.method != "POST") return;
  const auto& p = f.path;
  const std::size_t n = p.size();
  std::string body = request.body;
  if (!p.empty() && p[0] == "v1") {
    const Status media = server::check_content_type(request, "application/json");
    if (!media.ok()) return check_refused(media, "check_content_type", request);
    server::ModelPath target;
    if (n == 2 && p[1] == "actuals") {
      v1::ReportActualsRequest report;
      const Status parsed = server::parse_actuals_json_request(body, &report);
      if (!parsed.ok()) return check_refused(parsed, "parse_actuals_json_request", request);
      FUZZ_CHECK(report.values_size() == report.timestamps_size() * report.variable_names_size(),
                 "accepted a report whose values are not T * N");
    } else if (n == 4 && p[1] == "series" && p[3] == "observe") {
      check_deadline(request);
      server::ObserveJsonRequest observe;
      const Status parsed = server::parse_observe_json_request(body, p[2], &observe);
      if (!parsed.ok()) return check_refused(parsed, "parse_observe_json_request", request);
    } else if (server::parse_model_path(p, 1, &target) && target.action == "forecast") {
      check_deadline(request);
      server::ForecastJsonRequest forecast;
      const Status parsed = server::parse_forecast_json_request(body, &forecast);
      if (!parsed.ok()) return check_refused(parsed, "parse_forecast_json_request", request);
      FUZZ_CHECK(forecast.shape[0] * forecast.shape[1] ==
                     static_cast<std::int64_t>(forecast.values.size()),
                 "accepted a series that is not [N, T]");
    }
    return;
  }
  if (p.empty() || p[0] != "v2") return;
  if (n >= 3 && p[1] == "repository") {
    if (n == 3 && p[2] == "index") {
      bool ready_only = false;
      const Status parsed = server::parse_repository_index_request(body, &ready_only);
      if (!parsed.ok()) check_refused(parsed, "parse_repository_index_request", request);
    } else if (f.repository_control) {
      const Status parsed = server::check_repository_load_body(body);
      if (!parsed.ok()) check_refused(parsed, "check_repository_load_body", request);
    }
    return;
  }
  server::ModelPath target;
  if (!server::parse_model_path(p, 1, &target) || target.action != "infer") return;
  std::optional<std::size_t> header_length;
  const Status length = server::inference_header_length(request, &header_length);
  if (!length.ok()) return;
  check_deadline(request);
  server::OipRestRequest infer;
  const Status parsed = server::parse_oip_rest_request(body, header_length, &infer);
  if (!parsed.ok()) return check_refused(parsed, "parse_oip_rest_request", request);
  const auto& message = infer.message;
  FUZZ_CHECK(message.raw_input_contents_size() == 0 ||
                 message.raw_input_contents_size() == message.inputs_size(),
             "raw contents for some inputs only");
}

}  // namespace
}  // namespace tsserve::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tsserve::server;
  using namespace tsserve::fuzz;
  static prometheus::Registry registry;
  static HttpDoorMetrics metrics(registry);
  static const BearerTokenCheck token_check(kToken);

  FuzzInput in(data, size);
  const uint8_t config = in.byte();
  const bool cors_listed = (config & 1) != 0, cors_any = (config & 2) != 0;
  const bool host_list = (config & 4) != 0;
  const CorsPolicy cors(cors_any ? "*" : cors_listed ? kCorsOrigin : "");
  const HttpRequest request = request_of(in);
  const Facts facts = facts_of(request);

  bool any_admitted = false;
  for (const bool token : {false, true}) {
    for (const bool repository_control : {false, true}) {
      ServiceContext service;
      service.auth = token ? &token_check : nullptr;
      HttpAdmissionOptions options;
      options.repository_control = repository_control;
      options.allowed_hosts = host_list ? " TSSERVE.local , 127.0.0.1," : "";
      const HttpAdmission admission(service, cors, options, &metrics);
      std::optional<HttpResponse> refusal;
      try {
        refusal = admission.admit(request);
      } catch (const std::exception& e) {
        FUZZ_CHECK(false, std::string("admit threw: ") + e.what() + "\n  " + describe(request));
      }
      if (std::getenv("TSSERVE_FUZZ_TRACE") != nullptr) {
        std::fprintf(stderr, "%s\n  token %d, repository control %d: %d %s\n",
                     describe(request).c_str(), token, repository_control,
                     refusal ? refusal->status : 0, refusal ? refusal->body.c_str() : "admitted");
      }
      check_admission(refusal, request, facts, token, repository_control, cors_listed, cors_any,
                      host_list);
      any_admitted = any_admitted || !refusal;
    }
  }
  if (!any_admitted) return 0;
  try {
    route_body(request, facts);
  } catch (const std::exception& e) {
    FUZZ_CHECK(false, std::string("a route's check or parser threw: ") + e.what() + "\n  " +
                          describe(request));
  }
  return 0;
}
