// Fuzz target: load_server_config, the server's options from a JSON config file, the
// environment and flags together, and to_config_json.
//
// Input: NUL-separated parts. Part 0 is the config file's text; when it is not empty it
// is passed as `--config FILE` before the other arguments. Each later part is an argument,
// or an environment variable when it has the form TSSERVE_NAME=value; "@config" in a part
// stands for the config file's path (e.g. TSSERVE_CONFIG=@config).
// Invariants: nothing throws; --help gives the help; a refusal exits 2 with one message
// line per problem, each naming its source, and the hint to run --help; an acceptance
// satisfies every documented range, choice and pairing rule, holds durations the server
// can turn into clock time, and survives to_config_json -> config file -> load unchanged.

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fixed_environment.h"
#include "fuzz_target.h"
#include "memory_file.h"
#include "server/config/server_config.h"

namespace tsserve::fuzz {
namespace {

using server::ConfigLoadResult;
using server::ServerConfig;
using Outcome = ConfigLoadResult::Outcome;

struct Invocation {
  std::vector<std::string> args;
  std::map<std::string, std::string> environment;
};

Invocation split_input(const uint8_t* data, size_t size, MemoryFile& file) {
  std::vector<std::string> parts(1);
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      parts.emplace_back();
    } else {
      parts.back() += static_cast<char>(data[i]);
    }
  }
  file.write(parts[0]);
  Invocation invocation;
  if (!parts[0].empty()) invocation.args = {"--config", file.path()};
  for (size_t i = 1; i < parts.size(); ++i) {
    std::string part = parts[i];
    if (const size_t at = part.find("@config"); at != std::string::npos) {
      part.replace(at, 7, file.path());
    }
    const size_t equals = part.find('=');
    if (part.compare(0, 8, "TSSERVE_") == 0 && equals != std::string::npos) {
      invocation.environment[part.substr(0, equals)] = part.substr(equals + 1);
    } else {
      invocation.args.push_back(part);
    }
  }
  return invocation;
}

bool one_of(const std::string& value, std::initializer_list<const char*> choices) {
  for (const char* choice : choices) {
    if (value == choice) return true;
  }
  return false;
}

// HOST:PORT with a decimal port 0..65535 and a non-empty host.
bool host_port(const std::string& value) {
  const size_t colon = value.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == value.size()) return false;
  const std::string port = value.substr(colon + 1);
  if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos) return false;
  return std::stoi(port) <= 65535;
}

// A duration in `unit` seconds that the server turns into std::chrono nanoseconds (the
// batcher's and the drain's clock): finite, not negative, and far from overflowing.
void check_duration(double value, double unit, const char* name) {
  FUZZ_CHECK(std::isfinite(value) && value >= 0,
             std::string(name) + " accepted as " + std::to_string(value));
  FUZZ_CHECK(value * unit * 1e9 < 0.5 * static_cast<double>(std::numeric_limits<int64_t>::max()),
             std::string(name) + " " + std::to_string(value) + " overflows a clock in nanoseconds");
}

void check_accepted(const ServerConfig& config) {
  const auto& model = config.model;
  FUZZ_CHECK(!model.model.empty(), "empty model path");
  FUZZ_CHECK(one_of(model.attention, {"", "full", "prob"}), "attention " + model.attention);
  FUZZ_CHECK(one_of(model.prob_layout, {"", "canonical", "tslib"}), "prob_layout");
  FUZZ_CHECK(model.factor >= 0, "factor");
  // kAuto: resolved from the cores at start (config/parallelism.h).
  FUZZ_CHECK(model.threads == server::kAuto || (model.threads >= 1 && model.threads <= 1024), "threads");
  FUZZ_CHECK(model.instances == server::kAuto || (model.instances >= 1 && model.instances <= 1024),
             "instances");
  const std::string& device = model.device;
  bool device_ok = one_of(device, {"cpu", "cuda", "auto"});
  if (device.compare(0, 5, "cuda:") == 0 && device.size() > 5 && device.size() <= 9 &&
      device.find_first_not_of("0123456789", 5) == std::string::npos) {
    device_ok = std::stoi(device.substr(5)) < 1024;
  }
  FUZZ_CHECK(device_ok, "device \"" + device + "\"");

  const auto& batching = config.batching;
  FUZZ_CHECK(batching.max_batch_rows >= 1 && batching.max_encode_tokens >= 1, "batch limits");
  FUZZ_CHECK(batching.max_queue_rows >= batching.max_batch_rows,
             "max_queue_rows below max_batch_rows");
  FUZZ_CHECK(batching.preferred_batch_rows >= 0 &&
                 batching.preferred_batch_rows <= batching.max_batch_rows,
             "preferred_batch_rows outside 0..max_batch_rows");
  check_duration(batching.max_queue_delay_ms, 1e-3, "max_queue_delay_ms");
  FUZZ_CHECK(batching.idle_spin_us >= 0 && batching.idle_spin_us <= 1000000,
             "idle_spin_us outside 0..1000000");
  check_duration(batching.max_queue_wait_ms, 1e-3, "max_queue_wait_ms");

  const auto& server = config.server;
  FUZZ_CHECK(host_port(server.grpc_address) || (server.grpc_address.compare(0, 5, "unix:") == 0 &&
                                                server.grpc_address.size() > 5),
             "grpc_address \"" + server.grpc_address + "\"");
  FUZZ_CHECK(server.metrics_address.empty() || host_port(server.metrics_address),
             "metrics_address \"" + server.metrics_address + "\"");
  FUZZ_CHECK(server.metrics_address != server.grpc_address ||
                 server.grpc_address.substr(server.grpc_address.rfind(':')) == ":0",
             "metrics and gRPC on one port");
  FUZZ_CHECK(server.max_message_bytes >= 1024, "max_message_bytes");
  check_duration(server.drain_timeout_s, 1.0, "drain_timeout_s");
  FUZZ_CHECK(server.tls_cert.empty() == server.tls_key.empty(), "tls_cert without tls_key");
  FUZZ_CHECK(server.tls_ca.empty() || !server.tls_cert.empty(), "tls_ca without a certificate");

  FUZZ_CHECK(one_of(config.logging.log_level, {"trace", "debug", "info", "warn", "error"}),
             "log_level");
  FUZZ_CHECK(one_of(config.logging.log_format, {"text", "json"}), "log_format");
}

// Every line names where its value came from (a flag, a TSSERVE_ variable, the config
// file) or the option it is about, and the last one says where to find help.
void check_refused(const ConfigLoadResult& result, const std::string& config_path) {
  FUZZ_CHECK(result.exit_code() == 2, "a refusal must exit 2");
  const std::string& message = result.message;
  const std::string hint =
      "Run tsserve --help for every option, its default and its environment variable.\n";
  FUZZ_CHECK(message.size() > hint.size() &&
                 message.compare(message.size() - hint.size(), hint.size(), hint) == 0,
             "no --help hint: " + message);
  size_t start = 0;
  while (start < message.size() - hint.size()) {
    const size_t end = message.find('\n', start);
    const std::string line = message.substr(start, end - start);
    FUZZ_CHECK(!line.empty(), "an empty problem line in: " + message);
    const bool names_source =
        line.find("--") != std::string::npos || line.find("TSSERVE_") != std::string::npos ||
        line.find(config_path) != std::string::npos ||
        line.find("config file") != std::string::npos ||
        line.find("argument") != std::string::npos || line.find('_') != std::string::npos;
    FUZZ_CHECK(names_source,
               "a problem that names no option or source: \"" + line + "\" in:\n" + message);
    start = end + 1;
  }
}

// Loading to_config_json's file gives the same options (server_config.h).
void check_round_trip(const ServerConfig& config, MemoryFile& file) {
  std::string text;
  try {
    text = server::to_config_json(config);
  } catch (const nlohmann::json::exception& e) {
    FUZZ_CHECK(false, std::string("to_config_json threw: ") + e.what());
  }
  // Paths need not be UTF-8 but JSON text must be: such bytes are replaced (U+FFFD) and
  // the file cannot say the same thing. Only exact files are compared.
  if (text.find("\xEF\xBF\xBD") != std::string::npos) return;
  file.write(text);
  const ConfigLoadResult again =
      server::load_server_config({"--config", file.path()}, server::fixed_environment({}));
  FUZZ_CHECK(again.outcome == Outcome::kRun,
             "to_config_json's file is refused: " + again.message + "\n" + text);
  FUZZ_CHECK(server::to_config_json(again.config) == text,
             "to_config_json's file loads as other options:\n" + text);
}

}  // namespace
}  // namespace tsserve::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tsserve;
  static fuzz::MemoryFile config_file("tsserve-fuzz-config");
  static fuzz::MemoryFile round_trip_file("tsserve-fuzz-round-trip");
  const fuzz::Invocation invocation = fuzz::split_input(data, size, config_file);
  const server::ConfigLoadResult result = server::load_server_config(
      invocation.args, server::fixed_environment(invocation.environment));
  switch (result.outcome) {
    case fuzz::Outcome::kHelp:
      FUZZ_CHECK(
          result.exit_code() == 0 && result.message.find("--max-batch-rows") != std::string::npos,
          "--help without the options");
      break;
    case fuzz::Outcome::kError:
      fuzz::check_refused(result, config_file.path());
      break;
    case fuzz::Outcome::kRun:
      fuzz::check_accepted(result.config);
      fuzz::check_round_trip(result.config, round_trip_file);
      break;
  }
  return 0;
}
