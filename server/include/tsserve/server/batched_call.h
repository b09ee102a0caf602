#pragma once
// One batched unary call, whatever its protocol and method (tsserve.v1 Forecast and Encode,
// the Open Inference Protocol's ModelInfer): refuse it, or decode it into a task, queue
// it, and let the batcher's worker encode the answer and end the call. Deadlines,
// cancellation, the queue's refusals and the call's metrics are handled here once.
//
//   decode(request, shape, limits, &input) -> grpc::Status   fills Task::Input
//   encode(input, shape, std::move(output), response) -> grpc::Status   on the worker
//
// Lifetime: `response` belongs to gRPC and outlives the call's end; the shape and
// anything `encode` captures must outlive every task the batcher holds.

#include <grpcpp/grpcpp.h>

#include <memory>

#include "tsserve/server/dynamic_batcher.h"
#include "tsserve/server/model_shape.h"
#include "tsserve/server/server_metrics.h"
#include "tsserve/server/status_mapping.h"
#include "tsserve/server/unary_call.h"

namespace tsserve::server {

// gRPC deadline (system clock) -> the batcher's steady clock.
Clock::time_point steady_deadline(const grpc::CallbackServerContext& context);

// OK, or RESOURCE_EXHAUSTED when an answer of `bytes` exceeds `max_bytes` (0: no limit).
grpc::Status check_response_size(std::size_t bytes, int64_t max_bytes);

template <typename Task, typename Request, typename Response, typename Decode, typename Encode>
grpc::ServerUnaryReactor* serve_batched(grpc::CallbackServerContext* context,
                                        const Request& request, Response* response, Method method,
                                        const grpc::Status& admitted, const ModelShape& shape,
                                        const RequestLimits& limits, ServerMetrics* metrics,
                                        DynamicBatcher& batcher, Decode decode, Encode encode) {
  const Clock::time_point deadline = steady_deadline(*context);
  const auto call = UnaryCall::start(metrics, method, deadline);
  typename Task::Input input;
  const grpc::Status status = admitted.ok() ? decode(request, shape, limits, &input) : admitted;
  if (!status.ok()) {
    call->end(status);
    return call.get();
  }
  const ModelShape* model = &shape;
  const int64_t max_response_bytes = limits.max_response_bytes;
  auto task = std::make_unique<Task>(
      std::move(input), deadline, [call] { return call->ended(); },
      [call, response, model, encode, max_response_bytes](Task& done, const TaskStatus& outcome) {
        if (outcome.is_ok()) {
          call->end([&] {
            const grpc::Status encoded =
                encode(done.input, *model, std::move(done.output), response);
            if (!encoded.ok()) return encoded;
            const grpc::Status fits = check_response_size(response->ByteSizeLong(), max_response_bytes);
            if (!fits.ok()) response->Clear();
            return fits;
          });
        } else {
          call->end(to_grpc_status(outcome));
        }
      });
  const std::size_t rows = task->rows();
  const SubmitResult result = batcher.submit(task);
  if (result != SubmitResult::kAccepted) call->end(to_grpc_status(result, rows, batcher.options()));
  return call.get();
}

}  // namespace tsserve::server
