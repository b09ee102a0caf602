#pragma once
// Shared by the security tests: the throw-away PKI (made once per test binary), real
// tsserve processes started with extra options, and the tsserve-client binary.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "child_process.h"
#include "throwaway_pki.h"

namespace tsserve::testing {

class SecurityTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite();
  static const ThrowawayPki& pki() { return *pki_; }

  // A tsserve on loopback with the bundled model and `options`.
  std::unique_ptr<ServerProcess> start_server(const std::vector<std::string>& options);
  // tsserve-client <args...>.
  static CommandResult client(const std::vector<std::string>& args);
  // A file in this test's own folder (created), holding `text`.
  std::string write_file(const std::string& name, const std::string& text);
  // The folder made for this test.
  std::string test_dir() const;

 private:
  static std::unique_ptr<ThrowawayPki> pki_;
};

}  // namespace tsserve::testing
