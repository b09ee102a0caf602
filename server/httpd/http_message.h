#pragma once
// An HTTP exchange as plain values, so that the routes (oip_rest_routes.h) and the metrics
// page know nothing of the HTTP library (http_server.h is the only file that does).

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/sync/mutex.h"

namespace tsserve::server {

// Tells whoever answers a request that its client closed the connection before the
// answer, so a call still queued can end (CANCELLED) instead of being computed for nobody.
// The server notifies; the door registers what to do. Thread-safe.
class ClientWatch {
 public:
  // `callback` runs once if the client goes: on the server's thread when it notices, or
  // at once (on this thread) if it already has. A later registration replaces it.
  void on_gone(std::function<void()> callback);
  // The server's side: the client closed the connection.
  void notify_gone();

 private:
  Mutex mutex_;
  bool gone_ TSSERVE_GUARDED_BY(mutex_) = false;
  std::function<void()> callback_ TSSERVE_GUARDED_BY(mutex_);
};

struct HttpRequest {
  std::string method;  // "GET", "POST", ... as sent
  std::string path;    // the target without its query, percent-decoding left to the routes
  std::string query;   // after '?', "" when none
  // Header fields in arrival order, names lower-cased.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // Set by the server for a connection it can watch (plaintext); null otherwise.
  std::shared_ptr<ClientWatch> client;

  // The first value of header `name` (lower-case), if any.
  std::optional<std::string_view> header(std::string_view name) const {
    for (const auto& [key, value] : headers)
      if (key == name) return std::string_view(value);
    return std::nullopt;
  }
  // How many fields named `name` (lower-case) arrived.
  std::size_t header_count(std::string_view name) const {
    std::size_t count = 0;
    for (const auto& field : headers) count += field.first == name ? 1 : 0;
    return count;
  }
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;  // besides Content-Type/-Length
  std::string body;
};

// Sends the answer to one request; called exactly once, from any thread.
using HttpResponder = std::function<void(HttpResponse)>;
// Answers one request, now or later (the responder may be kept and called on another
// thread, e.g. the batcher's worker).
using HttpHandler = std::function<void(HttpRequest&& request, HttpResponder respond)>;
// Sees a request's header block (method, path, query, headers; the body still unread)
// and returns the answer that refuses it, or nullopt to read the body and handle it.
// Called on the server's thread; must not block.
using HttpHeadCheck = std::function<std::optional<HttpResponse>(const HttpRequest& head)>;

}  // namespace tsserve::server
