#include "server/service/batched_call.h"

namespace tsserve::server {

Clock::time_point steady_deadline(const grpc::CallbackServerContext& context) {
  const auto deadline = context.deadline();
  if (deadline == std::chrono::system_clock::time_point::max()) return Clock::time_point::max();
  const auto remaining = deadline - std::chrono::system_clock::now();
  return std::chrono::steady_clock::now() + std::chrono::duration_cast<Clock::duration>(remaining);
}

grpc::Status check_response_size(std::size_t bytes, int64_t max_bytes) {
  if (max_bytes <= 0 || bytes <= static_cast<std::size_t>(max_bytes)) return grpc::Status::OK;
  return {grpc::StatusCode::RESOURCE_EXHAUSTED,
          "the answer would be " + std::to_string(bytes) + " bytes, over the server's " +
              "max_message_bytes = " + std::to_string(max_bytes) +
              "; ask for less: fewer attention maps (attention.layers, attention.variables, "
              "heads averaged) or fewer variables per request"};
}

}  // namespace tsserve::server
