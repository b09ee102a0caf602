#pragma once
// Channels to a tsserve: plain or TLS (server-verified, optionally with a client
// certificate for mutual TLS), with retries off unless asked for, balancing calls
// round-robin over every address the target resolves to (dns:///name of a headless
// Kubernetes Service: one address per pod).

#include <grpcpp/channel.h>

#include <memory>
#include <string>
#include <vector>

namespace tsserve::client {

struct TlsOptions {
  bool enabled = false;
  std::string ca_file;      // PEM roots that sign the server's certificate; empty: system roots
  std::string cert_file;    // client certificate (PEM) for mutual TLS; with key_file
  std::string key_file;
  std::string server_name;  // overrides the name checked against the certificate
};

struct ChannelOptions {
  std::string target = "localhost:50051";
  TlsOptions tls;
  // Largest response accepted; attention maps of big requests exceed gRPC's 4 MiB default.
  int max_receive_bytes = 64 * 1024 * 1024;
  // Attempts per call on UNAVAILABLE (gRPC retry policy with backoff). 1: no retries. A
  // load generator must not retry, or it hides the errors it is meant to count.
  int max_attempts = 1;
};

// Throws std::runtime_error naming the option when a TLS file cannot be read.
std::shared_ptr<grpc::Channel> make_channel(const ChannelOptions& options);

// "a:1,b:2" and repeated values -> ["a:1", "b:2"]; empty entries dropped.
std::vector<std::string> split_targets(const std::vector<std::string>& values);

}  // namespace tsserve::client
