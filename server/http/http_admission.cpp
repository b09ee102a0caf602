#include "server/http/http_admission.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "server/http/http_request_rules.h"
#include "server/httpd/http_status.h"

namespace tsserve::server {
namespace {

// "Host: name:port" or "[v6]:port" -> "name" / "[v6]" (lower-case).
std::string host_name(std::string_view host) {
  if (!host.empty() && host.front() == '[') {
    const std::size_t close = host.find(']');
    return ascii_lower(host.substr(0, close == std::string_view::npos ? host.size() : close + 1));
  }
  return ascii_lower(host.substr(0, host.find(':')));
}

bool changes_state(const std::string& method) {
  return method != "GET" && method != "HEAD" && method != "OPTIONS";
}

bool is_health(const std::vector<std::string>& path) {
  return path.size() == 3 && path[0] == "v2" && path[1] == "health" &&
         (path[2] == "live" || path[2] == "ready");
}

bool is_repository_control(const std::vector<std::string>& path) {
  return path.size() == 5 && path[0] == "v2" && path[1] == "repository" && path[2] == "models" &&
         (path[4] == "load" || path[4] == "unload");
}

bool is_infer(const std::vector<std::string>& path) {
  return path.size() >= 4 && path[0] == "v2" && path[1] == "models" && path.back() == "infer";
}

HttpResponse refusal(StatusCode code, std::string message, int http_status = 0) {
  HttpResponse response = error_response({code, std::move(message)});
  if (http_status != 0) response.status = http_status;
  return response;
}

// open_without_token, given the path's segments (`parsed`: path_segments succeeded).
bool open_without_token(const HttpRequest& head, bool parsed,
                        const std::vector<std::string>& path) {
  if (head.method == "OPTIONS" && head.header("access-control-request-method")) return true;
  const bool get = head.method == "GET";
  if ((get || head.method == "HEAD") &&
      (head.path == "/console" || head.path.rfind("/console/", 0) == 0)) {
    return true;
  }
  if (get && head.path == "/openapi.json") return true;
  return get && parsed && is_health(path);
}

}  // namespace

bool open_without_token(const HttpRequest& head) {
  std::vector<std::string> path;
  const bool parsed = path_segments(head.path, &path).ok();
  return open_without_token(head, parsed, path);
}

HttpAdmission::HttpAdmission(const ServiceContext& service, const CorsPolicy& cors,
                             HttpAdmissionOptions options, HttpDoorMetrics* metrics)
    : service_(service),
      cors_(cors),
      repository_control_(options.repository_control),
      metrics_(metrics) {
  const std::string& hosts = options.allowed_hosts;
  std::size_t start = 0;
  while (start <= hosts.size()) {
    const std::size_t comma = std::min(hosts.find(',', start), hosts.size());
    std::string host = ascii_lower(hosts.substr(start, comma - start));
    host.erase(
        std::remove_if(host.begin(), host.end(), [](char c) { return c == ' ' || c == '\t'; }),
        host.end());
    if (!host.empty()) allowed_hosts_.push_back(std::move(host));
    start = comma + 1;
  }
}

std::optional<HttpResponse> HttpAdmission::refuse(HttpRefusal reason, HttpResponse response) const {
  if (metrics_ != nullptr) metrics_->count_refusal(reason);
  return response;
}

bool HttpAdmission::host_allowed(const HttpRequest& head) const {
  if (allowed_hosts_.empty()) return true;
  const auto host = head.header("host");
  if (!host) return false;
  const std::string name = host_name(*host);
  return std::find(allowed_hosts_.begin(), allowed_hosts_.end(), name) != allowed_hosts_.end();
}

bool HttpAdmission::origin_allowed(const HttpRequest& head) const {
  const auto origin = head.header("origin");
  if (!origin) return true;  // not a browser's cross-origin request
  if (cors_.allows(std::string(*origin))) return true;
  // The server's own pages (the console) send their own origin: scheme://Host.
  const auto host = head.header("host");
  if (!host) return false;
  const std::string given = ascii_lower(*origin);
  const std::string own = ascii_lower(*host);
  return given == "http://" + own || given == "https://" + own;
}

std::optional<HttpResponse> HttpAdmission::admit(const HttpRequest& head) const {
  std::vector<std::string> path;
  const bool parsed = path_segments(head.path, &path).ok();
  if (!host_allowed(head) && !(parsed && is_health(path))) {
    return refuse(HttpRefusal::kHost,
                  refusal(StatusCode::kPermissionDenied,
                          "host: \"" + std::string(head.header("host").value_or("")) +
                              "\" is not a name this server answers to; see "
                              "--http-allowed-hosts"));
  }
  if (!open_without_token(head, parsed, path)) {
    const Status authenticated = authenticate_http(service_, head);
    if (!authenticated.ok()) {
      return refuse(HttpRefusal::kUnauthenticated, error_response(authenticated));
    }
  }
  if (!changes_state(head.method)) return std::nullopt;
  if (!origin_allowed(head)) {
    return refuse(HttpRefusal::kOrigin,
                  refusal(StatusCode::kPermissionDenied,
                          "origin: \"" + std::string(*head.header("origin")) +
                              "\" may not change this server's state; allow it with "
                              "--http-cors-origins"));
  }
  const std::string media = media_type(head);
  const bool binary_infer = parsed && is_infer(path) &&
                            head.header("inference-header-content-length").has_value() &&
                            media == "application/octet-stream";
  if (media != "application/json" && !binary_infer) {
    return refuse(
        HttpRefusal::kMediaType,
        refusal(StatusCode::kInvalidArgument,
                "content-type: \"" + std::string(head.header("content-type").value_or("")) +
                    "\"; a " + head.method + " takes application/json",
                415));
  }
  if (parsed && is_repository_control(path) && !repository_control_ && service_.auth == nullptr) {
    return refuse(HttpRefusal::kRepositoryControl,
                  refusal(StatusCode::kPermissionDenied,
                          "repository control over HTTP is off: start tsserve with "
                          "--http-repository-control, or set a token (--auth-token-file) so "
                          "that only its holders may load and unload models"));
  }
  return std::nullopt;
}

}  // namespace tsserve::server
