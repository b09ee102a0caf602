// The listeners bind where they are told: an operator can keep the metrics endpoint on
// loopback (scraped by a local agent or a sidecar) while gRPC faces the network. The
// kernel's socket table (/proc/net/tcp) is the judge, not the server's own log.

#include <gmock/gmock.h>

#include <fstream>
#include <set>
#include <sstream>

#include "security_fixture.h"

namespace tsserve::testing {
namespace {

// An IPv4 address as /proc/net/tcp prints it: the 32-bit value in host (little-endian)
// byte order, as hex.
std::string ipv4_from_hex(const std::string& hex) {
  const unsigned long value = std::stoul(hex, nullptr, 16);
  return std::to_string(value & 0xFF) + "." + std::to_string((value >> 8) & 0xFF) + "." +
         std::to_string((value >> 16) & 0xFF) + "." + std::to_string((value >> 24) & 0xFF);
}

// An IPv6 address of /proc/net/tcp6 (four such words): the wildcard, loopback and
// IPv4-mapped ones by name (gRPC listens on 127.0.0.1 through an IPv6 socket), others raw.
std::string ipv6_from_hex(const std::string& hex) {
  if (hex == std::string(32, '0')) return "::";
  if (hex == "00000000000000000000000001000000") return "::1";
  if (hex.compare(0, 24, "0000000000000000FFFF0000") == 0) return ipv4_from_hex(hex.substr(24));
  return hex;
}

// The addresses ("127.0.0.1", "0.0.0.0", "::", ...) with a listening TCP socket on `port`.
std::set<std::string> listen_addresses(int port) {
  std::set<std::string> addresses;
  for (const char* table_path : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream table(table_path);
    std::string line;
    std::getline(table, line);  // header
    while (std::getline(table, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state;
      fields >> slot >> local >> remote >> state;
      constexpr const char* kListen = "0A";
      const auto colon = local.find(':');
      if (state != kListen || colon == std::string::npos) continue;
      if (std::stoi(local.substr(colon + 1), nullptr, 16) != port) continue;
      const std::string address = local.substr(0, colon);
      addresses.insert(address.size() == 8 ? ipv4_from_hex(address) : ipv6_from_hex(address));
    }
  }
  return addresses;
}

using ListenAddressTest = SecurityTest;

TEST_F(ListenAddressTest, MetricsCanListenOnLoopbackOnly) {
  const auto server = start_server({"--metrics-address", "127.0.0.1:0"});
  EXPECT_EQ(listen_addresses(server->metrics_port()), std::set<std::string>{"127.0.0.1"});
  EXPECT_FALSE(http_get(server->metrics_port(), "/metrics").empty());
}

TEST_F(ListenAddressTest, MetricsOnAllInterfacesShowAsTheWildcard) {
  // The counterpart: the check above can tell loopback from everywhere.
  const auto server = start_server({"--metrics-address", "0.0.0.0:0"});
  EXPECT_EQ(listen_addresses(server->metrics_port()), std::set<std::string>{"0.0.0.0"});
}

TEST_F(ListenAddressTest, GrpcListensWhereItIsTold) {
  const auto server = start_server({});  // the harness passes --grpc-address 127.0.0.1:0
  EXPECT_EQ(listen_addresses(server->grpc_port()), std::set<std::string>{"127.0.0.1"});
}

}  // namespace
}  // namespace tsserve::testing
