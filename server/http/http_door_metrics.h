#pragma once
// The HTTP door's own series, beside the per-call ones (server_metrics.h):
//   tsserve_http_refused_total{reason}   requests refused on their headers (or
//                                        connections over the cap), by reason
//   tsserve_http_failures_total          requests whose handling threw (answered 500)
// Every reason's child exists from the start (at 0). Thread safety: any thread.

#include <prometheus/counter.h>
#include <prometheus/registry.h>

#include <array>
#include <cstddef>

namespace tsserve::server {

enum class HttpRefusal {
  kHost,               // Host not in --http-allowed-hosts
  kUnauthenticated,    // no or a wrong token
  kOrigin,             // a state change from an Origin not allowed
  kMediaType,          // a POST that is not application/json
  kRepositoryControl,  // load or unload with repository control off
  kConnections,        // a connection over --http-max-connections
};
inline constexpr std::size_t kHttpRefusalCount = 6;
// "host", "unauthenticated", "origin", "media_type", "repository_control", "connections".
const char* http_refusal_name(HttpRefusal reason);

class HttpDoorMetrics {
 public:
  // Registers the families on `registry`, which outlives this object.
  explicit HttpDoorMetrics(prometheus::Registry& registry);

  void count_refusal(HttpRefusal reason) {
    refused_[static_cast<std::size_t>(reason)]->Increment();
  }
  void count_failure() { failures_->Increment(); }

 private:
  std::array<prometheus::Counter*, kHttpRefusalCount> refused_{};
  prometheus::Counter* failures_ = nullptr;
};

}  // namespace tsserve::server
