#pragma once
// An HTTP request's CallEnding (call/call_ending.h): whichever of the batch task and
// the deadline ends the call first decides its Status, and `render` turns it (with the
// response the answer wrote, which render's captures own) into the HTTP answer, sent
// once through the connection's responder. A client that closes the connection first
// (httpd's ClientWatch) ends the call CANCELLED.

#include <chrono>
#include <functional>
#include <memory>

#include "server/call/call_ending.h"
#include "server/codec/common/trace_context.h"
#include "server/httpd/http_message.h"

namespace tsserve::server {

class HttpCall final : public CallEnding {
 public:
  using Render = std::function<HttpResponse(const Status& status)>;

  // Starts tracking a call of `request` (with its W3C `traceparent` header, if any).
  static std::shared_ptr<HttpCall> start(ServerMetrics* metrics, Method method,
                                         std::chrono::steady_clock::time_point deadline,
                                         const HttpRequest& request, HttpResponder respond,
                                         Render render) {
    std::shared_ptr<HttpCall> call(
        new HttpCall(metrics, method, deadline, std::move(respond), std::move(render)));
    if (const auto traceparent = request.header("traceparent")) {
      call->set_trace(parse_traceparent(*traceparent));
    }
    // A client that goes away ends its call, as a gRPC cancellation does: a task still
    // queued is then dropped, not computed.
    if (request.client) {
      request.client->on_gone([weak = std::weak_ptr<HttpCall>(call)] {
        if (const auto gone = weak.lock()) {
          gone->end(
              Status{StatusCode::kCancelled, "the client closed the connection before the answer"});
        }
      });
    }
    return call;
  }

 private:
  HttpCall(ServerMetrics* metrics, Method method, std::chrono::steady_clock::time_point deadline,
           HttpResponder respond, Render render)
      : CallEnding(metrics, Transport::kHttp, method, deadline),
        respond_(std::move(respond)),
        render_(std::move(render)) {}

  void deliver(const Status& status) override { respond_(render_(status)); }

  const HttpResponder respond_;
  const Render render_;
};

}  // namespace tsserve::server
