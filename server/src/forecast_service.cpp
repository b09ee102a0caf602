#include "tsserve/server/forecast_service.h"

#include <spdlog/spdlog.h>

#include "tsserve/server/forecast_task.h"
#include "tsserve/server/model_selection.h"
#include "tsserve/server/status_mapping.h"
#include "tsserve/server/unary_call.h"

namespace tsserve::server {

Clock::time_point steady_deadline(const grpc::CallbackServerContext& context) {
  const auto deadline = context.deadline();
  if (deadline == std::chrono::system_clock::time_point::max()) return Clock::time_point::max();
  const auto remaining = deadline - std::chrono::system_clock::now();
  return std::chrono::steady_clock::now() + std::chrono::duration_cast<Clock::duration>(remaining);
}

grpc::Status ForecastServiceImpl::admit(const std::string& model) const {
  if (draining_.load()) return {grpc::StatusCode::UNAVAILABLE, "the server is shutting down"};
  return check_model_name(model, {context_.shape.name});
}

namespace {

// One batched call (Forecast or Encode, which differ only in their decoder, task and
// encoder): refuse it, or validate, queue, and let the worker answer.
template <typename Task, typename Request, typename Response, typename Decode, typename Encode>
grpc::ServerUnaryReactor* serve_batched(grpc::CallbackServerContext* context,
                                        const Request& request, Response* response,
                                        Method method, const grpc::Status& admitted,
                                        const ServiceContext& service, DynamicBatcher& batcher,
                                        Decode decode, Encode encode) {
  const Clock::time_point deadline = steady_deadline(*context);
  const auto call = UnaryCall::start(service.metrics, method, deadline);
  typename Task::Input input;
  const grpc::Status status =
      admitted.ok() ? decode(request, service.shape, service.limits, &input) : admitted;
  if (!status.ok()) {
    call->end(status);
    return call.get();
  }
  const ModelShape* shape = &service.shape;
  auto task = std::make_unique<Task>(
      std::move(input), deadline, [call] { return call->ended(); },
      [call, response, shape, encode](Task& done, const TaskStatus& outcome) {
        if (outcome.is_ok()) {
          call->end([&] { return encode(done.input, *shape, std::move(done.output), response); });
        } else {
          call->end(to_grpc_status(outcome));
        }
      });
  const std::size_t rows = task->rows();
  const SubmitResult result = batcher.submit(task);
  if (result != SubmitResult::kAccepted) call->end(to_grpc_status(result, rows, batcher.options()));
  return call.get();
}

}  // namespace

grpc::ServerUnaryReactor* ForecastServiceImpl::Forecast(grpc::CallbackServerContext* context,
                                                        const v1::ForecastRequest* request,
                                                        v1::ForecastResponse* response) {
  return serve_batched<ForecastTask>(context, *request, response, Method::kForecast,
                                     admit(request->model()), context_,
                                     *context_.forecast_batcher, decode_forecast_request,
                                     encode_forecast_response);
}

grpc::ServerUnaryReactor* ForecastServiceImpl::Encode(grpc::CallbackServerContext* context,
                                                      const v1::EncodeRequest* request,
                                                      v1::EncodeResponse* response) {
  return serve_batched<EncodeTask>(context, *request, response, Method::kEncode,
                                   admit(request->model()), context_, *context_.encode_batcher,
                                   decode_encode_request, encode_encode_response);
}

grpc::ServerUnaryReactor* ForecastServiceImpl::GetModelInfo(grpc::CallbackServerContext* context,
                                                            const v1::GetModelInfoRequest* request,
                                                            v1::GetModelInfoResponse* response) {
  const auto call =
      UnaryCall::start(context_.metrics, Method::kGetModelInfo, steady_deadline(*context));
  const grpc::Status admitted = admit(request->model());
  if (admitted.ok()) *response->mutable_info() = context_.info;
  call->end(admitted);
  return call.get();
}

}  // namespace tsserve::server
