#include "tsserve/client/channel.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace tsserve::client {
namespace {

std::string read_pem(const std::string& path, const std::string& option) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error(option + ": cannot read '" + path + "'");
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

std::shared_ptr<grpc::ChannelCredentials> credentials(const TlsOptions& tls) {
  if (!tls.enabled) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions ssl;
  if (!tls.ca_file.empty()) ssl.pem_root_certs = read_pem(tls.ca_file, "tls-ca");
  if (tls.cert_file.empty() != tls.key_file.empty()) {
    throw std::runtime_error("tls-cert and tls-key: give both (mutual TLS) or neither");
  }
  if (!tls.cert_file.empty()) {
    ssl.pem_cert_chain = read_pem(tls.cert_file, "tls-cert");
    ssl.pem_private_key = read_pem(tls.key_file, "tls-key");
  }
  return grpc::SslCredentials(ssl);
}

// The channel's service config: round_robin over every address the target resolves to
// (a headless Service's DNS name gives one per pod; gRPC's default, pick_first, would send
// every call to the first), and gRPC's retry policy (gRFC A6) when retries are asked for.
std::string service_config(int max_attempts) {
  std::string config = R"({"loadBalancingConfig": [{"round_robin": {}}])";
  if (max_attempts > 1) {
    config += R"(, "methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": )" +
              std::to_string(max_attempts) +
              R"(, "initialBackoff": "0.05s", "maxBackoff": "1s", "backoffMultiplier": 2,
                 "retryableStatusCodes": ["UNAVAILABLE"]}}])";
  }
  return config + "}";
}

}  // namespace

std::shared_ptr<grpc::Channel> make_channel(const ChannelOptions& options) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(options.max_receive_bytes);
  if (!options.tls.server_name.empty()) {
    args.SetSslTargetNameOverride(options.tls.server_name);
  }
  args.SetInt(GRPC_ARG_ENABLE_RETRIES, options.max_attempts > 1 ? 1 : 0);
  args.SetServiceConfigJSON(service_config(options.max_attempts));
  return grpc::CreateCustomChannel(options.target, credentials(options.tls), args);
}

std::vector<std::string> split_targets(const std::vector<std::string>& values) {
  std::vector<std::string> targets;
  for (const auto& value : values) {
    std::stringstream stream(value);
    std::string target;
    while (std::getline(stream, target, ',')) {
      if (!target.empty()) targets.push_back(target);
    }
  }
  return targets;
}

}  // namespace tsserve::client
