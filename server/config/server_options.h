#pragma once
// The server's options as values: what ServerConfig holds, with each option's default.
// Where they come from (file, environment, flags) and how they are checked is
// server_config.h; the one table of their names is config_option.h.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "server/batching/batcher_defaults.h"

namespace tsserve::server {

// The names ModelOptions::attention and ::prob_layout take besides "" (the model config's
// choice): the model's own spellings (model::to_string), which the runtime converts
// (runtime/served_model_config.h); an integration test holds the two together.
inline constexpr std::initializer_list<const char*> kAttentionKinds = {"full", "prob"};
inline constexpr std::initializer_list<const char*> kProbLayouts = {"canonical", "tslib"};

// The checkpoint served when none is configured: TSSERVE_DEFAULT_MODEL at build time
// (the Docker image points it at the model it bundles).
std::string default_model_path();

// An integer option left to the server to choose from the machine ("auto").
inline constexpr int kAuto = 0;

struct ModelOptions {
  // Checkpoint file (torch.save state_dict or safetensors).
  std::string model = default_model_path();
  // Model config JSON; "" = the .json beside the checkpoint (same stem).
  std::string model_config;
  // "" = as the model config says, or one of kAttentionKinds.
  std::string attention;
  // ProbSparse sampling factor; 0 = as the model config says.
  int factor = 0;
  // ProbSparse output layout: "" = as the model config says, or one of kProbLayouts.
  std::string prob_layout;
  // "cpu" | "cuda" | "cuda:N" | "auto" (CUDA when available, else CPU).
  std::string device = "cpu";
  // The forward on the CPU: "fused" (the model library's fused kernels where they apply,
  // model/row_forecaster.h) | "torch" (LibTorch's operators).
  std::string cpu_kernels = "fused";
  // LibTorch intra-op threads; kAuto = resolved at start (config/parallelism.h).
  int threads = kAuto;
  // Model instances, one batcher worker each; kAuto = resolved at start.
  int instances = kAuto;
  // A row's answer does not depend on what else is in its batch (DESIGN.md).
  bool batch_invariant = true;
};

// Many models and versions from a directory (server/repository/repository_scan.h) instead
// of the one checkpoint of ModelOptions::model.
struct RepositoryOptions {
  // DIR/<name>/<version>/{model.pt|model.pth|model.safetensors, config.json}; "" = serve
  // ModelOptions::model alone, as a repository of one.
  std::string model_repository;
  // How often the repository is scanned for new, changed and removed versions; 0 = only
  // at start and on explicit load/unload. 10 s: a weekly retrain is live within seconds,
  // and a scan (a few directory listings and stats) costs microseconds per model.
  double repository_poll_s = 10.0;
  // Resident bytes of all loaded versions at most; a load past it fails with the reason.
  // 0 = no bound.
  std::int64_t max_loaded_bytes = 0;
};

struct BatchingOptions {
  // The batcher's limits (batching/dynamic_batcher.h, BatcherOptions); why these defaults
  // is in config_option.cpp.
  int max_batch_rows = static_cast<int>(kDefaultMaxBatchRows);
  // 0 = max_batch_rows. Below it, a worker leaves the rest of the queue to the next free one.
  int preferred_batch_rows = 0;
  // 0: work-conserving: an idle worker takes what is queued at once.
  double max_queue_delay_ms = 0.0;
  int max_queue_rows = static_cast<int>(kDefaultMaxQueueRows);
  // Refuse a request expected to wait longer than this in the queue; 0 = off, only
  // max_queue_rows bounds the queue.
  double max_queue_wait_ms = 0.0;
  // Patch tokens in one Encode request at most (at least 1: the option refuses 0).
  int max_encode_tokens = 4096;
  // How long one idle batcher worker polls its queue before it sleeps (microseconds);
  // 0 = it sleeps at once. Why this default: config_option.cpp.
  int idle_spin_us = 1000;
};

struct NetworkOptions {
  std::string grpc_address = "0.0.0.0:50051";
  // Share the gRPC port with other processes (SO_REUSEPORT): off, so a second server on
  // a port in use fails to start instead of taking half its connections.
  bool grpc_reuse_port = false;
  // The HTTP door (the Open Inference Protocol's REST binding); "" turns it off. 8000 as
  // Triton's. Port 0 picks a free port.
  std::string http_address = "0.0.0.0:8000";
  // Threads serving HTTP connections (parsing and writing JSON happens on them).
  int http_threads = 2;
  // Origins whose browser apps may call the HTTP door (CORS): comma-separated, "*" for
  // any, "" (the default) for none.
  std::string http_cors_origins;
  // The browser console at /console/ on the HTTP address (http/console_routes.h), and the
  // CSV it offers as a sample ("" none).
  bool http_console = true;
  std::string http_console_sample;
  // HTTP connections open at once; at the cap an idle one is closed, or else the new one
  // answered 503 (httpd/http_server.h). Below the file-descriptor limit, so gRPC, the
  // metrics page and model files still get descriptors when HTTP clients hold many.
  int http_max_connections = 512;
  // Loading and unloading models over HTTP (/v2/repository/models/M/load|unload): off
  // unless this is set or a token is (http/http_admission.h).
  bool http_repository_control = false;
  // Host names the HTTP door answers to (comma-separated; "" any): against DNS rebinding.
  std::string http_allowed_hosts;
  // "" disables the Prometheus endpoint. Port 0 picks a free port.
  std::string metrics_address = "0.0.0.0:9464";
  int max_message_bytes = 16 * 1024 * 1024;
  // How long queued and in-flight requests may take to finish after SIGTERM.
  double drain_timeout_s = 30.0;
  // PEM files; all empty = plaintext. cert and key go together; ca (client
  // certificates are then required and verified) needs both.
  std::string tls_cert;
  std::string tls_key;
  std::string tls_ca;
  // File holding the bearer token clients must send; "" = no authentication.
  std::string auth_token_file;
};

struct LoggingOptions {
  std::string log_level = "info";   // trace | debug | info | warn | error
  std::string log_format = "text";  // text | json (one object per line)
};

// The store of forecasts issued with a series_key (accuracy/forecast_store.h): its bounds.
struct AccuracyOptions {
  // Forecasts kept at most, over all keys; the least recently used go first. About 3.4 KB
  // each at N = 7, F = 96: the default is ~34 MB.
  int forecast_store_max_entries = 10'000;
  // A kept forecast is dropped this long after it was issued (its actuals are overdue).
  double forecast_store_max_age_s = 7 * 86'400.0;
};

// Live series (Observe; live/series_store.h): the windows kept per series key, their
// bounds and where they survive a restart.
struct LiveSeriesOptions {
  // Keys kept at most; the least recently observed go first. At N = 7, seq_len = 336 a
  // window holds 9.4 KB of float values.
  int series_store_max_keys = 100'000;
  // Bytes of windows kept at most (the store's own accounting, live/series_store.h).
  int series_store_max_bytes = 512 * 1024 * 1024;
  // Folder of the store's snapshot file (series.snapshot); "" = windows live in memory
  // only and a restart forgets them.
  std::string series_store_dir;
  // Seconds between snapshots (one is also written on drain).
  double series_snapshot_s = 60.0;
  // Where the windows and the kept forecasts are: "" = this process; redis://HOST:PORT[/DB]
  // = a Redis every replica shares (config/series_store_url.h).
  std::string series_store;
  // The shared store's AUTH password, read from this file; "" = none.
  std::string series_store_password_file;
  // Bound on connecting to the shared store and on each of its commands.
  int series_store_timeout_ms = 1000;
  // Connections to the shared store, used by one call at a time each.
  int series_store_connections = 8;
};

struct ServerConfig {
  ModelOptions model;
  RepositoryOptions repository;
  BatchingOptions batching;
  NetworkOptions server;
  LoggingOptions logging;
  AccuracyOptions accuracy;
  LiveSeriesOptions live;
};

}  // namespace tsserve::server
