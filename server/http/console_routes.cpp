#include "server/http/console_routes.h"

#include <fstream>
#include <sstream>
#include <utility>

#include "server/http/console_assets.h"
#include "server/httpd/http_status.h"

namespace tsserve::server {
namespace {

// Scripts, styles and API calls from this server only; no inline script or style, no
// plugins, no framing, no forms posting elsewhere. Pictures the page draws are data: and
// blob: URLs (the PNG downloads).
constexpr char kContentSecurityPolicy[] =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

HttpResponse page_response(std::string_view content_type, std::string body) {
  HttpResponse response;
  response.content_type = std::string(content_type);
  response.body = std::move(body);
  response.headers.emplace_back("Content-Security-Policy", kContentSecurityPolicy);
  response.headers.emplace_back("X-Content-Type-Options", "nosniff");
  response.headers.emplace_back("Referrer-Policy", "no-referrer");
  // The assets change with the binary: a browser asks again rather than keep an old page.
  response.headers.emplace_back("Cache-Control", "no-cache");
  return response;
}

HttpResponse not_found(const std::string& path, const char* why) {
  return error_response({StatusCode::kNotFound, "the path: \"" + path + "\" " + why});
}

}  // namespace

ConsoleRoutes::ConsoleRoutes(bool enabled, std::string sample_csv)
    : enabled_(enabled), sample_csv_(std::move(sample_csv)) {}

bool ConsoleRoutes::route(const HttpRequest& request, HttpResponder& respond) const {
  const std::string& path = request.path;
  if (path != "/console" && path.rfind("/console/", 0) != 0) return false;
  if (!enabled_) {
    respond(not_found(path, "is not served: the console is off (--http-console=false)"));
    return true;
  }
  if (request.method != "GET" && request.method != "HEAD") {
    HttpResponse response = error_response(invalid_argument(
        "the method: " + request.method + " " + path + "; the console's files take GET"));
    response.status = 405;
    response.headers.emplace_back("Allow", "GET, HEAD");
    respond(std::move(response));
    return true;
  }
  if (path == "/console") {
    // Relative links in the page resolve against /console/.
    HttpResponse response = page_response("text/plain; charset=utf-8", "see /console/\n");
    response.status = 301;
    response.headers.emplace_back("Location", "/console/");
    respond(std::move(response));
    return true;
  }
  const std::string name = path.substr(std::string("/console/").size());
  respond(asset(name.empty() ? "index.html" : name));
  return true;
}

HttpResponse ConsoleRoutes::asset(const std::string& name) const {
  if (name == "sample.csv") {
    if (sample_csv_.empty()) {
      return not_found("/console/sample.csv",
                       "is not served: no sample CSV was given (--http-console-sample FILE)");
    }
    std::ifstream file(sample_csv_, std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    if (!file) {
      return error_response({StatusCode::kNotFound, "/console/sample.csv: the sample file " +
                                                        sample_csv_ + " cannot be read"});
    }
    return page_response("text/csv; charset=utf-8", text.str());
  }
  const ConsoleAsset* found = console_asset(name);
  if (found == nullptr) {
    return not_found("/console/" + name, "is not one of the console's files");
  }
  return page_response(found->content_type, std::string(found->text));
}

}  // namespace tsserve::server
