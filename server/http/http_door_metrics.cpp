#include "server/http/http_door_metrics.h"

#include <prometheus/family.h>

namespace tsserve::server {

const char* http_refusal_name(HttpRefusal reason) {
  switch (reason) {
    case HttpRefusal::kHost:
      return "host";
    case HttpRefusal::kUnauthenticated:
      return "unauthenticated";
    case HttpRefusal::kOrigin:
      return "origin";
    case HttpRefusal::kMediaType:
      return "media_type";
    case HttpRefusal::kRepositoryControl:
      return "repository_control";
    case HttpRefusal::kConnections:
      return "connections";
  }
  return "unknown";
}

HttpDoorMetrics::HttpDoorMetrics(prometheus::Registry& registry) {
  auto& refused = prometheus::BuildCounter()
                      .Name("tsserve_http_refused_total")
                      .Help(
                          "HTTP requests refused on their headers, before their body was read, "
                          "and connections refused over the cap, by reason.")
                      .Register(registry);
  for (std::size_t i = 0; i < kHttpRefusalCount; ++i) {
    refused_[i] = &refused.Add({{"reason", http_refusal_name(static_cast<HttpRefusal>(i))}});
  }
  failures_ = &prometheus::BuildCounter()
                   .Name("tsserve_http_failures_total")
                   .Help("HTTP requests whose handling failed inside the server (answered 500).")
                   .Register(registry)
                   .Add({});
}

}  // namespace tsserve::server
