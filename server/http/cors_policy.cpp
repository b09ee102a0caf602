#include "server/http/cors_policy.h"

#include <algorithm>

#include "server/httpd/http_status.h"

namespace tsserve::server {
namespace {

std::string trimmed(const std::string& text) {
  const std::size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

}  // namespace

CorsPolicy::CorsPolicy(const std::string& origins) {
  std::size_t start = 0;
  while (start <= origins.size()) {
    const std::size_t comma = std::min(origins.find(',', start), origins.size());
    const std::string origin = trimmed(origins.substr(start, comma - start));
    if (origin == "*") {
      any_ = true;
    } else if (!origin.empty()) {
      origins_.push_back(origin);
    }
    start = comma + 1;
  }
}

bool CorsPolicy::allows(const std::string& origin) const {
  return any_ || std::find(origins_.begin(), origins_.end(), origin) != origins_.end();
}

std::optional<HttpResponse> CorsPolicy::preflight(const HttpRequest& request) const {
  if (request.method != "OPTIONS" || !request.header("access-control-request-method")) {
    return std::nullopt;
  }
  const std::string origin(request.header("origin").value_or(""));
  if (!allows(origin)) {
    HttpResponse refused = error_response(
        {StatusCode::kInvalidArgument,
         "origin: \"" + origin + "\" may not call this server; see --http-cors-origins"});
    refused.status = 403;
    return refused;
  }
  HttpResponse response;
  response.status = 204;
  response.headers = answer_headers(request);
  response.headers.emplace_back("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
  response.headers.emplace_back(
      "Access-Control-Allow-Headers",
      "Authorization, Content-Type, Request-Timeout-Ms, Inference-Header-Content-Length, "
      "traceparent");
  response.headers.emplace_back("Access-Control-Max-Age", "600");
  return response;
}

std::vector<std::pair<std::string, std::string>> CorsPolicy::answer_headers(
    const HttpRequest& request) const {
  const auto origin = request.header("origin");
  if (!origin || !allows(std::string(*origin))) return {};
  return {{"Access-Control-Allow-Origin", std::string(*origin)},
          {"Vary", "Origin"},
          {"Access-Control-Expose-Headers", "Retry-After, WWW-Authenticate"}};
}

}  // namespace tsserve::server
