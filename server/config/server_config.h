#pragma once
// The server's options, and where they come from.
//
// Every option has one name, spelled three ways: the config file key (`max_batch_rows`),
// the flag (`--max-batch-rows`) and the environment variable (`TSSERVE_MAX_BATCH_ROWS`).
// Later sources win:
//
//   in-class defaults < config file (--config FILE or TSSERVE_CONFIG; JSON)
//                     < environment (TSSERVE_<NAME>, for containers) < flags
//
// The config file is one flat JSON object of option keys (comments allowed):
//
//   {"model": "/models/etth1.pt", "device": "cuda:0", "instances": 2,
//    "max_queue_delay_ms": 1.5, "batch_invariant": true, "log_format": "json"}
//
// Values are typed (numbers as JSON numbers, booleans as true/false); an unknown key is
// an error, so a typo never silently leaves a default in place. In flags and the
// environment, booleans are true|false|1|0|yes|no|on|off.
//
// Only values are checked here (types, ranges, choices, pairs such as TLS cert + key);
// no file other than the config file is opened: the model loader and the TLS setup say
// which file they could not read.

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace tsserve::server {

// The names ModelOptions::attention and ::prob_layout take besides "" (the model config's
// choice): the model's own spellings (model::to_string), which the runtime converts
// (runtime/model_loading.h); an integration test holds the two together.
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
  int max_batch_rows = 448;
  // 0 = max_batch_rows. Below it, a worker leaves the rest of the queue to the next free one.
  int preferred_batch_rows = 0;
  // 0: work-conserving: an idle worker takes what is queued at once.
  double max_queue_delay_ms = 0.0;
  int max_queue_rows = 8192;
  // Refuse a request expected to wait longer than this in the queue; 0 = off, only
  // max_queue_rows bounds the queue.
  double max_queue_wait_ms = 0.0;
  // Patch tokens in one Encode batch at most.
  int max_encode_tokens = 4096;
  // How long one idle batcher worker polls its queue before it sleeps (microseconds);
  // 0 = it sleeps at once. Why this default: config_option.cpp.
  int idle_spin_us = 1000;
};

struct NetworkOptions {
  std::string grpc_address = "0.0.0.0:50051";
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

struct ServerConfig {
  ModelOptions model;
  RepositoryOptions repository;
  BatchingOptions batching;
  NetworkOptions server;
  LoggingOptions logging;
  AccuracyOptions accuracy;
};

// Reads an environment variable; nullopt when it is not set (set-but-empty is "").
using Environment = std::function<std::optional<std::string>(const std::string& name)>;

// The process environment (getenv). Tests pass their own (tests/support/fixed_environment.h).
Environment process_environment();

struct ConfigLoadResult {
  enum class Outcome {
    kRun,    // `config` holds the merged, validated options
    kHelp,   // --help: print `message` to stdout and exit 0
    kError,  // print `message` to stderr and exit 2
  };
  Outcome outcome = Outcome::kError;
  ServerConfig config;
  // kHelp: the help text. kError: one line per problem, each naming the option, where its
  // value came from (--flag, TSSERVE_NAME, FILE:key) and what was expected.
  std::string message;

  // 0 for kRun and kHelp, 2 for kError.
  int exit_code() const { return outcome == Outcome::kError ? 2 : 0; }
};

// `args` are the command-line arguments after the program name.
ConfigLoadResult load_server_config(const std::vector<std::string>& args,
                                    const Environment& environment);
ConfigLoadResult load_server_config(int argc, const char* const* argv,
                                    const Environment& environment);

// The options as a config file (pretty JSON, every key), e.g. for the startup log.
// Loading it back gives the same ServerConfig, unless a value holds bytes that are not
// UTF-8 (a path may): JSON cannot, so they are written as U+FFFD.
std::string to_config_json(const ServerConfig& config);

}  // namespace tsserve::server
