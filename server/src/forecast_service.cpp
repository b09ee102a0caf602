#include "tsserve/server/forecast_service.h"

#include <spdlog/spdlog.h>

#include "tsserve/server/forecast_task.h"
#include "tsserve/server/model_selection.h"
#include "tsserve/server/status_mapping.h"

namespace tsserve::server {

Clock::time_point steady_deadline(const grpc::CallbackServerContext& context) {
  const auto deadline = context.deadline();
  if (deadline == std::chrono::system_clock::time_point::max()) return Clock::time_point::max();
  const auto remaining = deadline - std::chrono::system_clock::now();
  return std::chrono::steady_clock::now() + std::chrono::duration_cast<Clock::duration>(remaining);
}

ForecastServiceImpl::Finisher ForecastServiceImpl::finisher(grpc::ServerUnaryReactor* reactor,
                                                            Method method) const {
  ServerMetrics* metrics = context_.metrics;
  if (metrics) metrics->add_inflight(+1);
  const auto arrived = std::chrono::steady_clock::now();
  return [reactor, method, metrics, arrived](const grpc::Status& status) {
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - arrived;
    if (metrics) {
      metrics->record_request(method, static_cast<int>(status.error_code()), took.count());
      metrics->add_inflight(-1);
    }
    spdlog::debug("{} finished {} in {:.3f} ms{}{}", method_name(method),
                  status_code_name(static_cast<int>(status.error_code())), took.count() * 1e3,
                  status.ok() ? "" : ": ", status.error_message());
    reactor->Finish(status);
  };
}

grpc::Status ForecastServiceImpl::admit(const std::string& model) const {
  if (draining_.load()) return {grpc::StatusCode::UNAVAILABLE, "the server is shutting down"};
  return check_model_name(model, {context_.shape.name});
}

namespace {

// Validates, queues, and arranges for the worker to answer. Shared by Forecast and
// Encode, which differ only in their decoder, task and encoder.
template <typename Task, typename Request, typename Response, typename Decode, typename Encode>
void submit_request(const Request& request, Response* response,
                    grpc::CallbackServerContext* context, const ServiceContext& service,
                    DynamicBatcher& batcher, const std::function<void(const grpc::Status&)>& finish,
                    Decode decode, Encode encode) {
  typename Task::Input input;
  grpc::Status status = decode(request, service.shape, service.limits, &input);
  if (!status.ok()) {
    spdlog::debug("rejected request {}: {}", request.request_id(), status.error_message());
    finish(status);
    return;
  }
  const ModelShape* shape = &service.shape;
  auto task = std::make_unique<Task>(
      std::move(input), steady_deadline(*context), [context] { return context->IsCancelled(); },
      [response, finish, shape, encode](Task& done, const TaskStatus& outcome) {
        if (outcome.is_ok()) {
          finish(encode(done.input, *shape, std::move(done.output), response));
        } else {
          finish(to_grpc_status(outcome));
        }
      });
  const std::size_t rows = task->rows();
  const SubmitResult result = batcher.submit(task);
  if (result != SubmitResult::kAccepted) {
    finish(to_grpc_status(result, rows, batcher.options()));
  }
}

}  // namespace

grpc::ServerUnaryReactor* ForecastServiceImpl::Forecast(grpc::CallbackServerContext* context,
                                                        const v1::ForecastRequest* request,
                                                        v1::ForecastResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const Finisher finish = finisher(reactor, Method::kForecast);
  const grpc::Status admitted = admit(request->model());
  if (!admitted.ok()) {
    finish(admitted);
    return reactor;
  }
  submit_request<ForecastTask>(*request, response, context, context_, *context_.forecast_batcher,
                               finish, decode_forecast_request, encode_forecast_response);
  return reactor;
}

grpc::ServerUnaryReactor* ForecastServiceImpl::Encode(grpc::CallbackServerContext* context,
                                                      const v1::EncodeRequest* request,
                                                      v1::EncodeResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const Finisher finish = finisher(reactor, Method::kEncode);
  const grpc::Status admitted = admit(request->model());
  if (!admitted.ok()) {
    finish(admitted);
    return reactor;
  }
  submit_request<EncodeTask>(*request, response, context, context_, *context_.encode_batcher,
                             finish, decode_encode_request, encode_encode_response);
  return reactor;
}

grpc::ServerUnaryReactor* ForecastServiceImpl::GetModelInfo(grpc::CallbackServerContext* context,
                                                            const v1::GetModelInfoRequest* request,
                                                            v1::GetModelInfoResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const Finisher finish = finisher(reactor, Method::kGetModelInfo);
  const grpc::Status admitted = admit(request->model());
  if (admitted.ok()) *response->mutable_info() = context_.info;
  finish(admitted);
  return reactor;
}

}  // namespace tsserve::server
