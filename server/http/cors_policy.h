#pragma once
// Cross-origin calls from browser apps (CORS), off unless --http-cors-origins names the
// origins allowed ("https://a.example,https://b.example", or "*" for any). For an allowed
// Origin, answers carry Access-Control-Allow-Origin (the origin itself, with Vary: Origin)
// and a preflight (OPTIONS with Access-Control-Request-Method) is answered 204 with the
// methods and headers tsserve takes. A preflight from another origin is 403; a plain
// request from one gets no CORS headers, so the browser withholds the answer.
//
// Credentials are a bearer token the app sends itself (Authorization), never cookies, so
// Access-Control-Allow-Credentials is not sent.

#include <optional>
#include <string>
#include <vector>

#include "server/httpd/http_message.h"

namespace tsserve::server {

class CorsPolicy {
 public:
  // `origins`: comma-separated, "*" for any, "" for off.
  explicit CorsPolicy(const std::string& origins);

  bool enabled() const { return any_ || !origins_.empty(); }

  // The answer to `request` when it is a preflight; nullopt otherwise.
  std::optional<HttpResponse> preflight(const HttpRequest& request) const;
  // The headers an answer to `request` carries (none when its Origin is not allowed).
  std::vector<std::pair<std::string, std::string>> answer_headers(const HttpRequest& request) const;
  // Whether browser apps from `origin` may call the server.
  bool allows(const std::string& origin) const;

 private:
  bool any_ = false;
  std::vector<std::string> origins_;
};

}  // namespace tsserve::server
