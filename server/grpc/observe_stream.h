#pragma once
// ObserveStream (forecast_service.proto): Observe for feeds of many series on one
// bidirectional gRPC stream. Each request read becomes one Observe call (observe_call.h)
// with an ending of its own; its answer, or its refusal as error_code/error_message, is
// queued and written in the order answers are ready.
//
// Flow control: at most kMaxObservesInWork requests of a stream are in work (read, not yet
// written); the next read starts only below that, so a client sending faster than the
// server answers fills gRPC's own stream window and is held back there, and the server's
// memory per stream stays bounded. gRPC allows one write in flight: answers wait in a queue
// of at most that many.
//
// Lifetime: gRPC holds the stream (self_) from start to OnDone; each request's ending
// holds it too until its answer is queued. The stream finishes once the client closed its
// side (or the stream broke) and nothing is in work or queued.
//
// Thread safety: reactions and answers arrive on gRPC's and the batchers' threads; one
// mutex guards the state; StartRead, StartWrite and Finish are called outside it.

#include <grpcpp/grpcpp.h>

#include <deque>
#include <memory>

#include "server/call/batched_call.h"
#include "server/call/service_context.h"
#include "server/sync/mutex.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

inline constexpr int kMaxObservesInWork = 64;

// The most requests one stream has had in work at once, over every stream of this process
// since it started (or the last reset): how tests see that kMaxObservesInWork holds.
int observe_stream_peak_in_work();
void reset_observe_stream_peak_in_work();

class ObserveStreamCall final
    : public grpc::ServerBidiReactor<v1::ObserveRequest, v1::ObserveResponse> {
 public:
  // Serves one stream; the returned reactor belongs to gRPC. `service` and `forecast`
  // outlive it (the service's own members).
  static ObserveStreamCall* start(const ServiceContext& service, const BatchedMethod& forecast,
                                  grpc::CallbackServerContext* context);

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnDone() override;

 private:
  class RequestEnding;
  // What to do once the mutex is released.
  struct Actions {
    bool read = false;
    const v1::ObserveResponse* write = nullptr;
    bool finish = false;
  };

  ObserveStreamCall(const ServiceContext& service, const BatchedMethod& forecast,
                    std::chrono::steady_clock::time_point deadline)
      : service_(service), forecast_(forecast), deadline_(deadline) {}

  // A request's answer (or refusal), from any thread.
  void answered(v1::ObserveResponse answer);
  Actions next_actions_locked() TSSERVE_REQUIRES(mutex_);
  void run(const Actions& actions);

  const ServiceContext& service_;
  const BatchedMethod& forecast_;
  const std::chrono::steady_clock::time_point deadline_;
  std::shared_ptr<ObserveStreamCall> self_;  // gRPC's reference, released in OnDone

  Mutex mutex_;
  v1::ObserveRequest
      incoming_;  // gRPC's read buffer: written by gRPC between StartRead and OnReadDone
  std::deque<v1::ObserveResponse> queued_
      TSSERVE_GUARDED_BY(mutex_);               // front: being written when writing_
  int in_work_ TSSERVE_GUARDED_BY(mutex_) = 0;  // read, answer not yet written
  bool reading_ TSSERVE_GUARDED_BY(mutex_) = false;
  bool writing_ TSSERVE_GUARDED_BY(mutex_) = false;
  bool reads_done_ TSSERVE_GUARDED_BY(mutex_) = false;  // the client closed its side
  bool broken_ TSSERVE_GUARDED_BY(mutex_) = false;      // a write failed: nobody reads answers
  bool finished_ TSSERVE_GUARDED_BY(mutex_) = false;
};

}  // namespace tsserve::server
