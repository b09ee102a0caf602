// tsserve: serve PatchTST, iTransformer, Informer and Transformer checkpoints (one model
// or a model repository) over gRPC (tsserve.v1, the Open Inference Protocol, health,
// reflection) and HTTP (the Open Inference Protocol's REST binding, the JSON API /v1, the
// console), with Prometheus metrics. `tsserve --help` lists every option, its default and
// its environment variable. With no arguments it serves the bundled PatchTST with gRPC on
// :50051, HTTP on :8000 and metrics on :9464. SIGTERM or SIGINT drains: admitted requests
// run until --drain-timeout-s, those still queued then are answered UNAVAILABLE (a batch
// already running finishes); exit 0 when every admitted request got its result, else 1.

#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstring>

#include "stop_signals.h"

#include "tsserve/model/kernel_choices.h"
#include "tsserve/model/malloc_retention.h"

#include "server/app/inference_server.h"
#include "server/config/server_config.h"
#include "server/observability/logging.h"

int main(int argc, char** argv) {
  using namespace tsserve::server;
  // First thing: a SIGTERM during start-up is kept and drains as soon as the server is up.
  // Shutdown runs here on the main thread, never in a signal handler (stop_signals.h).
  install_stop_signal_handlers();

  const ConfigLoadResult parsed = load_server_config(argc, argv, process_environment());
  if (parsed.outcome != ConfigLoadResult::Outcome::kRun) {
    std::fputs(parsed.message.c_str(), parsed.exit_code() == 0 ? stdout : stderr);
    return parsed.exit_code();
  }
  const ServerConfig& config = parsed.config;
  setup_logging(*log_level_from_name(config.logging.log_level),
                *log_format_from_name(config.logging.log_format));
  // Before the model's warm-up forwards, so their pages are the ones kept. Logged once the
  // server is up: a start that fails says only why.
  const tsserve::model::MallocRetentionResult retention =
      tsserve::model::keep_freed_memory_for_reuse();

  std::unique_ptr<InferenceServer> server;
  try {
    server = InferenceServer::start(config);
  } catch (const std::exception& e) {
    spdlog::critical("cannot start: {}", e.what());
    return 1;
  }
  spdlog::info("malloc: {}", retention.detail);
  // Which kernels computed the answers (they differ in the last bits across CPUs).
  spdlog::info("kernels: {}", tsserve::model::describe(tsserve::model::kernel_choices()));
  // One line on stdout for scripts and tests that start the server on port 0.
  std::printf("tsserve listening grpc_port=%d metrics_port=%d http_port=%d\n", server->grpc_port(),
              server->metrics_port(), server->http_port());
  std::fflush(stdout);

  const int signal_number = wait_for_stop_signal();
  spdlog::info(
      "received {}; draining: admitted requests run for up to {} s, then those still queued "
      "are answered UNAVAILABLE (a running batch finishes) and the exit code is 1",
      strsignal(signal_number), config.server.drain_timeout_s);
  const bool drained = server->shutdown(std::chrono::milliseconds(
      static_cast<int64_t>(config.server.drain_timeout_s * 1000)));
  return drained ? 0 : 1;
}
