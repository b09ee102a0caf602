#include "server/grpc/observe_stream.h"

#include <atomic>
#include <utility>

#include "server/call/observe_call.h"
#include "server/codec/v1/observe_request_decoder.h"
#include "server/grpc/happens_before.h"
#include "server/grpc/status_mapping.h"
#include "server/grpc/unary_call.h"

namespace tsserve::server {

namespace {
std::atomic<int> peak_in_work{0};

void note_in_work(int in_work) {
  int peak = peak_in_work.load(std::memory_order_relaxed);
  while (in_work > peak &&
         !peak_in_work.compare_exchange_weak(peak, in_work, std::memory_order_relaxed)) {
  }
}
}  // namespace

int observe_stream_peak_in_work() { return peak_in_work.load(std::memory_order_relaxed); }
void reset_observe_stream_peak_in_work() { peak_in_work.store(0, std::memory_order_relaxed); }

// One request's ending: counted as an Observe call (its status code and latency, as a
// unary call's), its answer or refusal handed to the stream.
class ObserveStreamCall::RequestEnding final : public CallEnding {
 public:
  RequestEnding(std::shared_ptr<ObserveStreamCall> stream, std::string series_key,
                std::string request_id)
      : CallEnding(stream->service_.metrics, Transport::kGrpc, Method::kObserve, stream->deadline_),
        stream_(std::move(stream)),
        series_key_(std::move(series_key)),
        request_id_(std::move(request_id)) {}

  v1::ObserveResponse* response() { return &response_; }

 private:
  void deliver(const Status& status) override {
    if (!status.ok()) {
      response_.Clear();
      response_.set_series_key(series_key_);
      response_.set_request_id(request_id_);
      response_.set_error_code(static_cast<int>(status.code()));
      response_.set_error_message(status.message());
    }
    stream_->answered(std::move(response_));
  }

  const std::shared_ptr<ObserveStreamCall> stream_;
  const std::string series_key_;
  const std::string request_id_;
  v1::ObserveResponse response_;  // written by the winning end (observe_call.h), then moved
};

ObserveStreamCall* ObserveStreamCall::start(const ServiceContext& service,
                                            const BatchedMethod& forecast,
                                            grpc::CallbackServerContext* context) {
  std::shared_ptr<ObserveStreamCall> stream(
      new ObserveStreamCall(service, forecast, steady_deadline(*context)));
  stream->self_ = stream;
  happens_before(stream.get());
  if (const Status status = authenticate(service, *context); !status.ok()) {
    {
      const MutexLock lock(stream->mutex_);
      stream->finished_ = true;
    }
    stream->Finish(to_grpc_status(status));
    return stream.get();
  }
  {
    const MutexLock lock(stream->mutex_);
    stream->reading_ = true;
  }
  stream->StartRead(&stream->incoming_);
  return stream.get();
}

void ObserveStreamCall::OnReadDone(bool ok) {
  happens_after(this);
  if (!ok) {
    Actions actions;
    {
      const MutexLock lock(mutex_);
      reading_ = false;
      reads_done_ = true;
      actions = next_actions_locked();
    }
    run(actions);
    return;
  }
  const v1::ObserveRequest request = std::move(incoming_);
  incoming_.Clear();
  Actions actions;
  {
    const MutexLock lock(mutex_);
    reading_ = false;
    ++in_work_;
    note_in_work(in_work_);
    actions = next_actions_locked();  // the next read, if the stream has room
  }
  // The points are appended before the next read starts, so one key's points are taken in
  // the order they were sent.
  auto ending = std::make_shared<RequestEnding>(self_, request.series_key(), request.request_id());
  v1::ObserveResponse* response = ending->response();
  Observation observation;
  if (const Status decoded = decode_observe_request(request, &observation); decoded.ok()) {
    serve_observe(service_, forecast_, std::move(ending), observation, response);
  } else {
    ending->end(decoded);
  }
  run(actions);
}

void ObserveStreamCall::answered(v1::ObserveResponse answer) {
  Actions actions;
  {
    const MutexLock lock(mutex_);
    if (broken_) {
      --in_work_;
    } else {
      queued_.push_back(std::move(answer));
    }
    actions = next_actions_locked();
  }
  run(actions);
}

void ObserveStreamCall::OnWriteDone(bool ok) {
  happens_after(this);
  Actions actions;
  {
    const MutexLock lock(mutex_);
    writing_ = false;
    queued_.pop_front();
    --in_work_;
    if (!ok) {
      // The client is gone: nothing written from here on is read.
      broken_ = true;
      in_work_ -= static_cast<int>(queued_.size());
      queued_.clear();
    }
    actions = next_actions_locked();
  }
  run(actions);
}

ObserveStreamCall::Actions ObserveStreamCall::next_actions_locked() {
  Actions actions;
  if (finished_) return actions;
  if (!writing_ && !queued_.empty() && !broken_) {
    writing_ = true;
    actions.write = &queued_.front();  // stays put: a deque's front moves only on pop_front
  }
  if (!reading_ && !reads_done_ && !broken_ && in_work_ < kMaxObservesInWork) {
    reading_ = true;
    actions.read = true;
  }
  if ((reads_done_ || broken_) && !reading_ && !writing_ && in_work_ == 0) {
    finished_ = true;
    actions.finish = true;
  }
  return actions;
}

void ObserveStreamCall::run(const Actions& actions) {
  happens_before(this);
  if (actions.write != nullptr) StartWrite(actions.write);
  if (actions.read) StartRead(&incoming_);
  if (actions.finish) Finish(grpc::Status::OK);
}

void ObserveStreamCall::OnDone() {
  happens_after(this);
  self_.reset();
}

}  // namespace tsserve::server
