#include "throwaway_pki.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "child_process.h"

namespace tsserve::testing {
namespace {

void openssl(const std::vector<std::string>& args) {
  std::vector<std::string> argv{"/usr/bin/openssl"};
  argv.insert(argv.end(), args.begin(), args.end());
  const CommandResult result = run_command(argv);
  if (result.exit_code != 0) {
    std::string command;
    for (const auto& arg : argv) command += arg + " ";
    throw std::runtime_error(command + "failed:\n" + result.out + result.err);
  }
}

// A self-signed CA certificate and its key.
void make_ca(const std::string& stem, const std::string& name) {
  openssl({"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=" + name,
           "-keyout", stem + ".key", "-out", stem + ".pem"});
}

// A key and a certificate for `name` signed by the CA at `ca_stem`, with `extensions`
// (an openssl extension section: the names it is valid for, its usage).
void make_signed(const std::string& stem, const std::string& name, const std::string& ca_stem,
                 const std::string& extensions) {
  openssl({"req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=" + name, "-keyout",
           stem + ".key", "-out", stem + ".csr"});
  std::ofstream(stem + ".ext") << extensions << "\n";
  openssl({"x509", "-req", "-in", stem + ".csr", "-CA", ca_stem + ".pem", "-CAkey",
           ca_stem + ".key", "-CAcreateserial", "-days", "2", "-extfile", stem + ".ext", "-out",
           stem + ".pem"});
}

}  // namespace

ThrowawayPki make_throwaway_pki(const std::string& dir) {
  std::filesystem::create_directories(dir);
  const std::string ca = dir + "/ca", rogue_ca = dir + "/rogue-ca";
  make_ca(ca, "tsserve test CA");
  make_ca(rogue_ca, "rogue CA");
  make_signed(dir + "/server", "localhost", ca,
              "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth");
  make_signed(dir + "/client", "tsserve test client", ca, "extendedKeyUsage=clientAuth");
  make_signed(dir + "/rogue-client", "tsserve test client", rogue_ca,
              "extendedKeyUsage=clientAuth");

  ThrowawayPki pki;
  pki.ca_cert = ca + ".pem";
  pki.server_cert = dir + "/server.pem";
  pki.server_key = dir + "/server.key";
  pki.client_cert = dir + "/client.pem";
  pki.client_key = dir + "/client.key";
  pki.rogue_ca_cert = rogue_ca + ".pem";
  pki.rogue_client_cert = dir + "/rogue-client.pem";
  pki.rogue_client_key = dir + "/rogue-client.key";
  return pki;
}

}  // namespace tsserve::testing
