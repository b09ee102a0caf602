#pragma once
// One call's ending, whatever door it came through (gRPC's reactor, unary_call.h; an HTTP
// exchange, server/http/http_call.h). Several parties may try to end a call: the door (the
// caller went away, the deadline passed) and the batch task (the answer is ready).
// Whichever comes first ends it; the others find it ended and do nothing. Every end
// records the call's status code and latency once, with the door's protocol label.
//
// A door derives from this class and delivers the winning Status in deliver(), which runs
// once, on the thread whose end() won.
//
// Lifetime: held by shared_ptr: the door keeps one reference until its exchange is done,
// a queued task another, so a task that outlives an abandoned call still finds a valid
// (ended) object.

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "server/codec/common/trace_context.h"
#include "server/observability/server_metrics.h"
#include "server/status/status.h"
#include "server/sync/mutex.h"

namespace tsserve::server {

class CallEnding {
 public:
  CallEnding(const CallEnding&) = delete;
  CallEnding& operator=(const CallEnding&) = delete;
  virtual ~CallEnding() = default;

  // Ends the call with `status`, unless it has ended already.
  void end(const Status& status);
  // Ends the call with what `answer` returns (it may write the response first), unless it
  // has ended already; `answer` runs only when this end wins.
  void end(const std::function<Status()>& answer);

  // The call resolved `model` (a loaded version's model name): its request series are
  // labelled with it. Calls that never say so count as model="". Any thread, before end().
  void set_model(const std::string& model);

  // What the call's log line says besides its method, code and latency: the request id
  // the codec resolved (the caller's, or one made up) and the caller's W3C trace
  // (trace_context.h), when it sent one. Any thread, before end().
  void set_request_id(const std::string& request_id);
  void set_trace(std::optional<TraceContext> trace);

  // Whether the call has ended (answered, refused, cancelled or expired).
  bool ended() const { return ended_.load(std::memory_order_acquire); }

  std::chrono::steady_clock::time_point deadline() const { return deadline_; }

 protected:
  // Starts tracking a call (counts it in flight). `metrics` may be null.
  CallEnding(ServerMetrics* metrics, Transport transport, Method method,
             std::chrono::steady_clock::time_point deadline);

  // Hands `status` (and the response the answer wrote, when OK) to the caller. Runs once.
  virtual void deliver(const Status& status) = 0;

 private:
  bool claim() { return !ended_.exchange(true, std::memory_order_acq_rel); }
  void finish(const Status& status);

  ServerMetrics* const metrics_;
  const Transport transport_;
  const Method method_;
  const std::chrono::steady_clock::time_point deadline_;
  const std::chrono::steady_clock::time_point arrived_;
  std::atomic<bool> ended_{false};
  Mutex about_mutex_;  // what the call learns while it runs
  std::string model_ TSSERVE_GUARDED_BY(about_mutex_);
  std::string request_id_ TSSERVE_GUARDED_BY(about_mutex_);
  std::optional<TraceContext> trace_ TSSERVE_GUARDED_BY(about_mutex_);
};

}  // namespace tsserve::server
