#include "connection_flags.h"

#include <fstream>
#include <iostream>
#include <stdexcept>

#include "exit_codes.h"
#include "tsserve/status/status_code_names.h"

namespace tsserve::client::cli {

void add_connection_flags(CLI::App& command, ConnectionFlags& flags, int default_timeout_ms) {
  flags.timeout_ms = default_timeout_ms;
  command.add_option("-t,--target", flags.targets,
                     "server address host:port; several (repeated or comma-separated) are "
                     "used round-robin")
      ->capture_default_str();
  command.add_flag("--tls", flags.tls.enabled, "connect with TLS");
  command.add_option("--tls-ca", flags.tls.ca_file, "PEM CA certificate(s) to verify the server")
      ->check(CLI::ExistingFile);
  command.add_option("--tls-cert", flags.tls.cert_file, "client certificate (PEM), mutual TLS")
      ->check(CLI::ExistingFile);
  command.add_option("--tls-key", flags.tls.key_file, "client private key (PEM), mutual TLS")
      ->check(CLI::ExistingFile);
  command.add_option("--tls-server-name", flags.tls.server_name,
                     "name to verify in the server certificate (default: the target host)");
  command.add_option("--token", flags.token, "bearer token sent with every call")
      ->envname("TSSERVE_TOKEN");
  command.add_option("--token-file", flags.token_file, "file holding the bearer token")
      ->check(CLI::ExistingFile);
  command.add_option("--timeout-ms", flags.timeout_ms, "deadline of each call, milliseconds")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command.add_option("--max-attempts", flags.max_attempts,
                     "attempts per call on UNAVAILABLE, with backoff (1 = no retries)")
      ->check(CLI::Range(1, 5))
      ->capture_default_str();
}

std::vector<std::string> resolve_targets(const ConnectionFlags& flags) {
  auto targets = split_targets(flags.targets);
  if (targets.empty()) throw std::invalid_argument("target: give at least one host:port");
  return targets;
}

ChannelOptions channel_options(const ConnectionFlags& flags, const std::string& target) {
  ChannelOptions options;
  options.target = target;
  options.tls = flags.tls;
  // A CA or client certificate only makes sense over TLS: asking for one implies --tls.
  if (!flags.tls.ca_file.empty() || !flags.tls.cert_file.empty()) options.tls.enabled = true;
  options.max_attempts = flags.max_attempts;
  return options;
}

CallSettings call_settings(const ConnectionFlags& flags) {
  CallSettings settings;
  settings.timeout = std::chrono::milliseconds(flags.timeout_ms);
  settings.bearer_token = flags.token;
  if (!flags.token_file.empty()) {
    std::ifstream file(flags.token_file);
    std::getline(file, settings.bearer_token);
    if (settings.bearer_token.empty()) {
      throw std::invalid_argument("token-file: '" + flags.token_file + "' holds no token");
    }
  }
  return settings;
}

TsserveClient make_client(const ConnectionFlags& flags) {
  const std::string target = resolve_targets(flags).front();
  return TsserveClient(make_channel(channel_options(flags, target)), call_settings(flags));
}

int report_call_failure(const std::string& what, const grpc::Status& status,
                        const TsserveClient& client, const std::string& target) {
  if (client.unreachable(status)) {
    std::cerr << "tsserve-client: cannot reach " << target << " (" << what << ": "
              << status_code_name(static_cast<int>(status.error_code())) << ": "
              << status.error_message() << ")\n";
    return kExitUnreachable;
  }
  std::cerr << "tsserve-client: " << what
            << " failed: " << status_code_name(static_cast<int>(status.error_code())) << ": "
            << status.error_message() << "\n";
  return kExitServerError;
}

}  // namespace tsserve::client::cli
