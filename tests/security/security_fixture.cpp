#include "security_fixture.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace tsserve::testing {

std::unique_ptr<ThrowawayPki> SecurityTest::pki_;

void SecurityTest::SetUpTestSuite() {
  if (!pki_) {
    // One PKI per process: CTest runs each test in its own process, several at once, and
    // a shared folder would have one process read a key another is still writing.
    pki_ = std::make_unique<ThrowawayPki>(make_throwaway_pki(
        std::string(TSSERVE_SECURITY_TEST_OUT) + "/pki-" + std::to_string(::getpid())));
  }
}

std::string SecurityTest::test_dir() const {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string dir = std::string(TSSERVE_SECURITY_TEST_OUT) + "/" + info->test_suite_name() +
                          "." + info->name();
  std::filesystem::create_directories(dir);
  return dir;
}

std::unique_ptr<ServerProcess> SecurityTest::start_server(const std::vector<std::string>& options) {
  return std::make_unique<ServerProcess>(TSSERVE_SERVER_BINARY, options);
}

CommandResult SecurityTest::client(const std::vector<std::string>& args) {
  std::vector<std::string> argv{TSSERVE_CLIENT_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv);
}

std::string SecurityTest::write_file(const std::string& name, const std::string& text) {
  const std::string path = test_dir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace tsserve::testing
