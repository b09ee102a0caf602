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

// Validates, queues, and arranges for the worker to answer. Shared by Forecast and
// Encode, which differ only in their decoder, task and encoder.
template <typename Task, typename Request, typename Response, typename Decode, typename Encode>
void submit_request(const Request& request, Response* response, const std::shared_ptr<UnaryCall>& call,
                    const ServiceContext& service, DynamicBatcher& batcher,
                    Clock::time_point deadline, Decode decode, Encode encode) {
  typename Task::Input input;
  const grpc::Status status = decode(request, service.shape, service.limits, &input);
  if (!status.ok()) {
    call->end(status);
    return;
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
}

}  // namespace

grpc::ServerUnaryReactor* ForecastServiceImpl::Forecast(grpc::CallbackServerContext* context,
                                                        const v1::ForecastRequest* request,
                                                        v1::ForecastResponse* response) {
  const Clock::time_point deadline = steady_deadline(*context);
  const auto call = UnaryCall::start(context_.metrics, Method::kForecast, deadline);
  const grpc::Status admitted = admit(request->model());
  if (!admitted.ok()) {
    call->end(admitted);
    return call.get();
  }
  submit_request<ForecastTask>(*request, response, call, context_, *context_.forecast_batcher,
                               deadline, decode_forecast_request, encode_forecast_response);
  return call.get();
}

grpc::ServerUnaryReactor* ForecastServiceImpl::Encode(grpc::CallbackServerContext* context,
                                                      const v1::EncodeRequest* request,
                                                      v1::EncodeResponse* response) {
  const Clock::time_point deadline = steady_deadline(*context);
  const auto call = UnaryCall::start(context_.metrics, Method::kEncode, deadline);
  const grpc::Status admitted = admit(request->model());
  if (!admitted.ok()) {
    call->end(admitted);
    return call.get();
  }
  submit_request<EncodeTask>(*request, response, call, context_, *context_.encode_batcher,
                             deadline, decode_encode_request, encode_encode_response);
  return call.get();
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
