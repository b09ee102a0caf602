// TLS and mutual TLS on the gRPC port, from the operator's side (tsserve with cert, key
// and CA files) and the user's (tsserve-client with --tls, --tls-ca, --tls-cert/--tls-key).
// Every refusal is a connection that never carries a call: the client reports the server
// unreachable (exit 2), not an answer.

#include <gmock/gmock.h>

#include <nlohmann/json.hpp>

#include "security_fixture.h"

namespace tsserve::testing {
namespace {

using ::testing::HasSubstr;

constexpr int kExitOk = 0;
constexpr int kExitUnreachable = 2;

class TlsTest : public SecurityTest {
 protected:
  std::vector<std::string> tls_server() const {
    return {"--tls-cert", pki().server_cert, "--tls-key", pki().server_key};
  }
  std::vector<std::string> mutual_tls_server() const {
    auto options = tls_server();
    options.insert(options.end(), {"--tls-ca", pki().ca_cert});
    return options;
  }
  // tsserve-client info against `server`, with `connection` flags.
  CommandResult info(const ServerProcess& server, std::vector<std::string> connection) {
    std::vector<std::string> args{"info", "--target", server.target(), "--timeout-ms", "5000"};
    args.insert(args.end(), connection.begin(), connection.end());
    return client(args);
  }
};

TEST_F(TlsTest, AClientTrustingTheCaIsServedOverTls) {
  const auto server = start_server(tls_server());
  const CommandResult result = info(*server, {"--tls", "--tls-ca", pki().ca_cert});
  EXPECT_EQ(result.exit_code, kExitOk) << result.err;
  EXPECT_THAT(result.out, HasSubstr("patchtst"));
  EXPECT_THAT(server->log(), HasSubstr("(TLS)"));
}

TEST_F(TlsTest, ForecastsTravelOverTls) {
  const auto server = start_server(tls_server());
  const CommandResult result =
      client({"bench", "--target", server->target(), "--tls", "--tls-ca", pki().ca_cert,
              "--concurrency", "2", "--requests", "20", "--warmup-s", "0", "--json"});
  ASSERT_EQ(result.exit_code, kExitOk) << result.err;
  const auto stage = nlohmann::json::parse(result.out).at("stages").at(0);
  EXPECT_EQ(stage.at("requests_ok"), 20) << result.out;
  EXPECT_EQ(stage.at("requests_failed"), 0) << result.out;
}

TEST_F(TlsTest, APlaintextClientGetsNoAnswer) {
  const auto server = start_server(tls_server());
  const CommandResult result = info(*server, {});
  EXPECT_EQ(result.exit_code, kExitUnreachable) << result.out << result.err;
}

TEST_F(TlsTest, AClientTrustingAnotherCaRefusesTheServer) {
  const auto server = start_server(tls_server());
  const CommandResult result = info(*server, {"--tls", "--tls-ca", pki().rogue_ca_cert});
  EXPECT_EQ(result.exit_code, kExitUnreachable) << result.out << result.err;
}

TEST_F(TlsTest, AClientCheckingAnotherNameRefusesTheServer) {
  const auto server = start_server(tls_server());
  const CommandResult result =
      info(*server, {"--tls", "--tls-ca", pki().ca_cert, "--tls-server-name", "elsewhere.test"});
  EXPECT_EQ(result.exit_code, kExitUnreachable) << result.out << result.err;
}

TEST_F(TlsTest, MutualTlsServesAClientWithACertificateFromTheCa) {
  const auto server = start_server(mutual_tls_server());
  const CommandResult result = info(*server, {"--tls", "--tls-ca", pki().ca_cert, "--tls-cert",
                                              pki().client_cert, "--tls-key", pki().client_key});
  EXPECT_EQ(result.exit_code, kExitOk) << result.err;
  EXPECT_THAT(server->log(), HasSubstr("(mutual TLS)"));
}

TEST_F(TlsTest, MutualTlsRefusesAClientWithoutACertificate) {
  const auto server = start_server(mutual_tls_server());
  const CommandResult result = info(*server, {"--tls", "--tls-ca", pki().ca_cert});
  EXPECT_EQ(result.exit_code, kExitUnreachable) << result.out << result.err;
}

TEST_F(TlsTest, MutualTlsRefusesAClientCertificateFromAnotherCa) {
  const auto server = start_server(mutual_tls_server());
  const CommandResult result =
      info(*server, {"--tls", "--tls-ca", pki().ca_cert, "--tls-cert", pki().rogue_client_cert,
                     "--tls-key", pki().rogue_client_key});
  EXPECT_EQ(result.exit_code, kExitUnreachable) << result.out << result.err;
}

TEST_F(TlsTest, AnUnreadableKeyStopsTheServerNamingTheOption) {
  const CommandResult result =
      run_command({TSSERVE_SERVER_BINARY, "--grpc-address", "127.0.0.1:0", "--http-address", "",
                   "--metrics-address", "", "--tls-cert", pki().server_cert, "--tls-key",
                   test_dir() + "/absent.key"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("tls_key " + test_dir() + "/absent.key: cannot be read"));
}

}  // namespace
}  // namespace tsserve::testing
