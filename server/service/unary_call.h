#pragma once
// One unary RPC's ending, shared by gRPC (which may learn that the caller cancelled, or
// that the deadline passed) and the batch task (which has the answer). Whichever comes
// first ends the call; the other finds it ended and does nothing. Every end records the
// call's status code and latency once.
//
// Lifetime: gRPC holds one reference until OnDone; a queued task holds another, so a
// task that outlives a cancelled call still finds a valid (ended) object. The response
// message belongs to gRPC and is written only by the one end() that wins, before Finish.

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "server/observability/server_metrics.h"
#include "server/sync/mutex.h"

namespace tsserve::server {

class UnaryCall final : public grpc::ServerUnaryReactor {
 public:
  // Starts tracking a call (counts it in flight). `metrics` may be null.
  static std::shared_ptr<UnaryCall> start(ServerMetrics* metrics, Method method,
                                          std::chrono::steady_clock::time_point deadline);

  // Ends the call with `status`, unless it has ended already.
  void end(const grpc::Status& status);
  // Ends the call with what `answer` returns (it may write the response first), unless
  // it has ended already; `answer` runs only when this end wins.
  void end(const std::function<grpc::Status()>& answer);

  // The call resolved `model` (a loaded version's model name): its request series are
  // labelled with it. Calls that never say so count as model="". Any thread, before end().
  void set_model(const std::string& model);

  // Whether the call has ended (answered, refused, cancelled or expired).
  bool ended() const { return ended_.load(std::memory_order_acquire); }

  void OnCancel() override;
  void OnDone() override;

 private:
  UnaryCall(ServerMetrics* metrics, Method method, std::chrono::steady_clock::time_point deadline);
  bool claim() { return !ended_.exchange(true, std::memory_order_acq_rel); }
  void finish(const grpc::Status& status);

  ServerMetrics* const metrics_;
  const Method method_;
  const std::chrono::steady_clock::time_point deadline_;
  const std::chrono::steady_clock::time_point arrived_;
  std::atomic<bool> ended_{false};
  Mutex model_mutex_;
  std::string model_ TSSERVE_GUARDED_BY(model_mutex_);
  std::shared_ptr<UnaryCall> self_;  // gRPC's reference, released in OnDone
};

}  // namespace tsserve::server
