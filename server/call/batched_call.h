#pragma once
// One batched call, whatever its door (gRPC, HTTP), protocol and method (tsserve.v1
// Forecast and Encode, the Open Inference Protocol's ModelInfer), as one object that owns
// its steps:
//
//   start:    admitted? decode the request into a task's input (the codec), or end the call
//   submit:   hand the task to the method's batcher, or end the call with its refusal
//   prepare:  on the batcher's worker, before any call of the batch completes: what the
//             codec may start for all of them at once (a forecast's keep)
//   complete: on the batcher's worker, with the runtime's result or the task's failure
//   encode:   the result into the response (the codec), bounded by max_response_bytes
//
// Every end goes through the door's CallEnding (call_ending.h), so deadlines, cancellation
// and the call's metrics are handled once. A Codec adapts one protocol's messages:
//
//   struct Codec {
//     using Request, Response;            // the protocol's messages
//     using Input, Output;                // request_types.h: ForecastInput/Output, ...
//     Status decode(const Request&, const ModelShape&, const RequestLimits&, Input*);
//     void prepare(const Input&, const ModelShape&, const Output&);  // may do nothing
//     Status encode(const Input&, const ModelShape&, Output&&, Response*);
//   };
//
// It is constructed per call and lives as long as the call, so it may keep what decode()
// learns for encode() (the Open Inference Protocol's OipReply).
//
// The model version a call runs on comes with it (ModelRoute, model_route.h): its batcher
// takes the task and its shape decodes and encodes, so a call admitted to one version
// finishes on it whatever is published meanwhile.
//
// Lifetime: the batcher's task holds the call until it is completed; the door holds its
// CallEnding until its exchange is done. `response` belongs to the door and outlives the
// call's end; the call holds its version (VersionLease) until it is destroyed; the
// BatchedMethod's metrics outlive every call.

#include <memory>
#include <utility>

#include "server/batching/dynamic_batcher.h"
#include "server/batching/request_task.h"
#include "server/call/call_ending.h"
#include "server/call/call_status.h"
#include "server/call/model_route.h"
#include "server/observability/server_metrics.h"
#include "server/request/model_shape.h"

namespace tsserve::server {

// What every call of one batched method shares, whatever version it runs on.
struct BatchedMethod {
  Method method;
  // Which of the version's batchers takes the method's tasks.
  DynamicBatcher& (ModelVersion::*batcher)() const;
  ServerMetrics* metrics;  // not owned; may be null
};

template <typename Codec>
class BatchedCall final : public std::enable_shared_from_this<BatchedCall<Codec>> {
 public:
  using Request = typename Codec::Request;
  using Response = typename Codec::Response;
  using Task = RequestTask<typename Codec::Input, typename Codec::Output>;

  // Serves one call of `method` on `route`'s version: refused with route.status when that
  // is not OK, else decoded and queued; `ending` answers it, `response` takes the answer.
  static void start(const BatchedMethod& method, std::shared_ptr<CallEnding> ending,
                    const Request& request, Response* response, ModelRoute route,
                    Codec codec = {}) {
    std::shared_ptr<BatchedCall> call(
        new BatchedCall(method, std::move(ending), response, std::move(codec)));
    call->lease_ = std::move(route.lease);
    if (call->lease_) call->ending_->set_model(call->lease_->name());
    const Status decoded = route.status.ok() ? call->decode(request) : route.status;
    if (decoded.ok()) {
      call->submit();
    } else {
      call->ending_->end(decoded);
    }
  }

 private:
  BatchedCall(const BatchedMethod& method, std::shared_ptr<CallEnding> ending, Response* response,
              Codec codec)
      : method_(method),
        ending_(std::move(ending)),
        response_(response),
        codec_(std::move(codec)) {}

  Status decode(const Request& request) {
    TSSERVE_RETURN_IF_ERROR(codec_.decode(request, lease_->shape(), lease_->limits(), &input_));
    ending_->set_request_id(input_.request_id);
    return {};
  }

  void submit() {
    auto task = std::make_unique<Task>(
        std::move(input_), ending_->deadline(), [ending = ending_] { return ending->ended(); },
        [self = this->shared_from_this()](Task& done, const Status& outcome) {
          self->complete(done, outcome);
        },
        [self = this->shared_from_this()](Task& done) { self->prepare(done); });
    const std::size_t rows = task->rows();
    DynamicBatcher& batcher = ((*lease_).*method_.batcher)();
    const SubmitResult result = batcher.submit(task);
    lease_.admitted();  // from here the version may drain, finishing the task if accepted
    if (result != SubmitResult::kAccepted) {
      ending_->end(refusal_status(result, rows, batcher.options()));
    }
  }

  // On the worker, before it completes the task's batch; a call that has ended already
  // starts nothing.
  void prepare(Task& done) {
    if (!ending_->ended()) codec_.prepare(done.input, lease_->shape(), done.output);
  }

  // On the worker that completes the task; `done` is the task this call submitted.
  void complete(Task& done, const Status& outcome) {
    if (!outcome.ok()) {
      ending_->end(task_status(outcome));
      return;
    }
    ending_->end([&] { return encode(done); });
  }

  // Runs only when the answer wins the call's end, so the response is written once.
  Status encode(Task& done) {
    TSSERVE_RETURN_IF_ERROR(
        codec_.encode(done.input, lease_->shape(), std::move(done.output), response_));
    Status fits =
        response_size_status(response_->ByteSizeLong(), lease_->limits().max_response_bytes);
    if (!fits.ok()) response_->Clear();
    return fits;
  }

  const BatchedMethod method_;
  const std::shared_ptr<CallEnding> ending_;
  Response* const response_;  // the door's
  Codec codec_;
  typename Task::Input input_;  // decoded here, then moved into the task
  VersionLease lease_;          // the version; set before decode when admitted
};

}  // namespace tsserve::server
