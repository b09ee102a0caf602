#pragma once
// The options every subcommand shares: where the server is and how to reach it.

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "tsserve/client/channel.h"
#include "tsserve/client/tsserve_client.h"

namespace tsserve::client::cli {

struct ConnectionFlags {
  std::vector<std::string> targets{"localhost:50051"};
  TlsOptions tls;
  std::string token;
  std::string token_file;
  int timeout_ms = 30000;
  int max_attempts = 1;
};

void add_connection_flags(CLI::App& command, ConnectionFlags& flags, int default_timeout_ms);

// Targets after splitting "a,b" lists; at least one.
std::vector<std::string> resolve_targets(const ConnectionFlags& flags);
ChannelOptions channel_options(const ConnectionFlags& flags, const std::string& target);
CallSettings call_settings(const ConnectionFlags& flags);
// A client for the first target.
TsserveClient make_client(const ConnectionFlags& flags);

// Prints "tsserve-client: <what>: <CODE>: <message>" (or the unreachable form) to stderr
// and returns the exit code for it.
int report_call_failure(const std::string& what, const grpc::Status& status,
                        const TsserveClient& client, const std::string& target);

}  // namespace tsserve::client::cli
