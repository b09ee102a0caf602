#include "tsserve/server/batched_call.h"

namespace tsserve::server {

Clock::time_point steady_deadline(const grpc::CallbackServerContext& context) {
  const auto deadline = context.deadline();
  if (deadline == std::chrono::system_clock::time_point::max()) return Clock::time_point::max();
  const auto remaining = deadline - std::chrono::system_clock::now();
  return std::chrono::steady_clock::now() + std::chrono::duration_cast<Clock::duration>(remaining);
}

}  // namespace tsserve::server
