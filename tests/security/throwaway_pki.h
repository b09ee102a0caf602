#pragma once
// A throw-away public-key infrastructure made with the openssl command line for one test
// run: a CA, a server certificate it signs (for localhost and 127.0.0.1), a client
// certificate it signs, and a rogue CA with a client certificate of its own, which a
// server trusting only the first CA must refuse.

#include <string>

namespace tsserve::testing {

struct ThrowawayPki {
  std::string ca_cert;
  std::string server_cert, server_key;
  std::string client_cert, client_key;
  std::string rogue_ca_cert;
  std::string rogue_client_cert, rogue_client_key;
};

// Writes the files into `dir` (created). Throws std::runtime_error with openssl's output
// when a step fails.
ThrowawayPki make_throwaway_pki(const std::string& dir);

}  // namespace tsserve::testing
