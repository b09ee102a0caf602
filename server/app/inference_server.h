#pragma once
// The whole server, assembled from its parts: the model repository (--model-repository, or
// the single --model as a repository of one) -> the registry of loaded versions, each with
// its family's forecaster and its own batchers -> services (tsserve.v1 and the Open Inference
// Protocol, over the same batchers) -> gRPC server (with health and reflection), the HTTP
// door (the OIP REST binding, the JSON API and the console) and the metrics endpoint.
//
// Lifecycle: start() returns once every model of the repository is loaded and warmed up
// or refused, and the listeners are bound. With the single --model a refused model stops
// start() (there is nothing to serve); with a repository a refused version is listed and
// the rest served. Health (grpc.health.v1 "", GET /v2/health/ready) is SERVING while
// calls are admitted and some model has a ready version (replica_ready.h); a model that
// failed to load is NOT_SERVING under its own name only.
// shutdown() drains: health NOT_SERVING, new calls UNAVAILABLE, admitted requests run
// until the timeout; those still queued then are answered UNAVAILABLE ("draining: ...;
// retry on another replica"), a batch already running finishes; then the listeners close.
//
// Thread safety: shutdown() may be called from any thread, once or more.

#include <chrono>
#include <memory>

#include "server/config/server_config.h"

namespace tsserve::server {

class InferenceServer {
 public:
  // Throws std::exception with a message for the operator (bad model, port in use, ...).
  static std::unique_ptr<InferenceServer> start(const ServerConfig& config);
  virtual ~InferenceServer() = default;

  // The bound ports (useful with port 0). http_port() and metrics_port() are 0 when off.
  virtual int grpc_port() const = 0;
  virtual int http_port() const = 0;
  virtual int metrics_port() const = 0;

  // Scans the model repository and applies it now: what the poller does every
  // --repository-poll-s (tests call it instead of waiting).
  virtual void poll_repository() = 0;

  // Drains and stops within `timeout` (plus what a batch running at the timeout takes to
  // finish, and a short grace to send the answers). Returns true when every admitted call
  // was answered with its result; false when some were still queued at `timeout` and were
  // answered UNAVAILABLE instead (main() exits 1).
  virtual bool shutdown(std::chrono::milliseconds timeout) = 0;
};

}  // namespace tsserve::server
