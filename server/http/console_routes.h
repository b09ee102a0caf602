#pragma once
// The browser console for modellers at /console/ (--http-console, on by default): a page
// of our own (server/http/console/: HTML, JavaScript modules, one style sheet) compiled into the
// binary, so nothing is fetched from elsewhere when it loads. It is a client of the public
// JSON API (/v1, /v2/repository/index), nothing private; its answers carry a strict
// Content-Security-Policy (scripts and styles from this server only, no inline script,
// no framing). With --http-console-sample FILE, /console/sample.csv serves that CSV (the
// page's "ETTh1 sample" button): read from the file on each request, never changed.
//
// The assets are static, so they are served without the bearer token, as /v2/health is;
// every call the page makes to the API shows the token the operator types into it.

#include <string>

#include "server/httpd/http_message.h"

namespace tsserve::server {

class ConsoleRoutes {
 public:
  // `enabled` false: every /console path is 404 saying how to turn the console on.
  ConsoleRoutes(bool enabled, std::string sample_csv);

  // Answers and returns true when `request` is for /console; false otherwise.
  bool route(const HttpRequest& request, HttpResponder& respond) const;

 private:
  HttpResponse asset(const std::string& name) const;

  bool enabled_;
  std::string sample_csv_;
};

}  // namespace tsserve::server
