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
#include <optional>
#include <string>
#include <vector>

#include "server/config/server_options.h"

namespace tsserve::server {

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
