#include "server/call/replica_ready.h"

namespace tsserve::server {

bool replica_ready(const ServingState& state, const ModelRegistry& registry) {
  return state.serving() && registry.any_ready();
}

}  // namespace tsserve::server
