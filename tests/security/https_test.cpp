// HTTPS on the HTTP port with the gRPC port's TLS options, from the user's side: curl
// (a real client, OpenSSL underneath) trusting the throw-away CA. TLS, mutual TLS, and
// each refusal a failed handshake that never carries a request (curl exits non-zero with
// no HTTP status).

#include <gmock/gmock.h>

#include "security_fixture.h"

namespace tsserve::testing {
namespace {

using ::testing::HasSubstr;

class HttpsTest : public SecurityTest {
 protected:
  std::vector<std::string> tls_server() const {
    return {"--tls-cert", pki().server_cert, "--tls-key", pki().server_key};
  }
  // curl's run for `path` on `server`'s HTTP port over `scheme`, with `options` added; its
  // stdout ends with the HTTP status (000 when no answer came).
  CommandResult curl(const ServerProcess& server, const std::string& path,
                     std::vector<std::string> options, const std::string& scheme = "https") {
    std::vector<std::string> argv{TSSERVE_CURL, "-sS", "--max-time", "20", "-w", " %{http_code}"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back(scheme + "://127.0.0.1:" + std::to_string(server.http_port()) + path);
    return run_command(argv);
  }
};

TEST_F(HttpsTest, AClientTrustingTheCaIsServedOverHttps) {
  const auto server = start_server(tls_server());
  const CommandResult ready = curl(*server, "/v2/health/ready", {"--cacert", pki().ca_cert});
  EXPECT_EQ(ready.exit_code, 0) << ready.err;
  EXPECT_EQ(ready.out, "{\"ready\":true} 200");
  const CommandResult models = curl(*server, "/v1/models", {"--cacert", pki().ca_cert});
  EXPECT_THAT(models.out, HasSubstr("\"name\":\"patchtst-etth1\""));
  EXPECT_THAT(models.out, HasSubstr(" 200"));
  EXPECT_THAT(server->log(),
              HasSubstr("; HTTP port " + std::to_string(server->http_port()) + " (TLS)"));
}

TEST_F(HttpsTest, PlaintextAndUntrustedClientsGetNoAnswer) {
  const auto server = start_server(tls_server());
  const CommandResult plaintext = curl(*server, "/v2/health/ready", {}, "http");
  EXPECT_NE(plaintext.exit_code, 0) << plaintext.out;
  EXPECT_THAT(plaintext.out, HasSubstr("000"));
  const CommandResult rogue = curl(*server, "/v2/health/ready", {"--cacert", pki().rogue_ca_cert});
  EXPECT_NE(rogue.exit_code, 0) << rogue.out;
  EXPECT_THAT(rogue.out, HasSubstr("000"));
  // The server serves on.
  EXPECT_EQ(curl(*server, "/v2/health/live", {"--cacert", pki().ca_cert}).out,
            "{\"live\":true} 200");
}

TEST_F(HttpsTest, MutualTlsServesOnlyClientsWithACertificateFromTheCa) {
  auto options = tls_server();
  options.insert(options.end(), {"--tls-ca", pki().ca_cert});
  const auto server = start_server(options);
  const CommandResult served =
      curl(*server, "/v2/health/ready",
           {"--cacert", pki().ca_cert, "--cert", pki().client_cert, "--key", pki().client_key});
  EXPECT_EQ(served.out, "{\"ready\":true} 200") << served.err;
  EXPECT_THAT(server->log(), HasSubstr(" (mutual TLS)"));
  const CommandResult without = curl(*server, "/v2/health/ready", {"--cacert", pki().ca_cert});
  EXPECT_THAT(without.out, HasSubstr("000"));
  const CommandResult rogue = curl(*server, "/v2/health/ready",
                                   {"--cacert", pki().ca_cert, "--cert", pki().rogue_client_cert,
                                    "--key", pki().rogue_client_key});
  EXPECT_THAT(rogue.out, HasSubstr("000"));
}

}  // namespace
}  // namespace tsserve::testing
