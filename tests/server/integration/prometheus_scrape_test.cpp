// A real Prometheus (Debian's `prometheus`, on loopback with a temporary config) scrapes
// tsserve's /metrics, and a PromQL query over the latency histogram returns data; the
// live exposition passes `promtool check metrics`.

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "server_harness.h"

namespace tsserve::server::testing {
namespace {

namespace fs = std::filesystem;

const char kPrometheus[] = "/usr/bin/prometheus";
const char kPromtool[] = "/usr/bin/promtool";

int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t length = sizeof(address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

std::string url_encode(const std::string& text) {
  std::string out;
  char hex[4];
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '_' || c == '.' || c == '-') {
      out.push_back(static_cast<char>(c));
    } else {
      std::snprintf(hex, sizeof(hex), "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

class ChildProcess {
 public:
  explicit ChildProcess(std::vector<std::string> argv) {
    pid_ = ::fork();
    if (pid_ == 0) {
      std::vector<char*> args;
      for (auto& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
  }
  ~ChildProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
  }

 private:
  pid_t pid_ = -1;
};

TEST(PrometheusScrape, LatencyHistogramIsQueryableInARealPrometheus) {
  if (!fs::exists(kPrometheus)) {
    GTEST_SKIP() << kPrometheus << " is absent (Debian package `prometheus`; .ci/run installs it)";
  }
  ServerHarness harness;
  for (int i = 0; i < 3; ++i) {
    v1::ForecastResponse response;
    grpc::ClientContext context;
    ASSERT_TRUE(harness.stub().Forecast(&context, forecast_request(2, 336, 50 + i), &response).ok());
  }

  const fs::path dir = fs::temp_directory_path() / ("tsserve-prometheus-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "prometheus.yml")
      << "global:\n  scrape_interval: 1s\n"
      << "scrape_configs:\n  - job_name: tsserve\n    static_configs:\n"
      << "      - targets: ['127.0.0.1:" << harness.server().metrics_port() << "']\n";
  const int web_port = free_port();
  {
    ChildProcess prometheus({kPrometheus, "--config.file=" + (dir / "prometheus.yml").string(),
                             "--storage.tsdb.path=" + (dir / "data").string(),
                             "--web.listen-address=127.0.0.1:" + std::to_string(web_port),
                             "--log.level=error"});
    const std::string query = url_encode(
        "histogram_quantile(0.5, sum by (le) "
        "(tsserve_request_duration_seconds_bucket{method=\"Forecast\"}))");
    nlohmann::json result;
    // Bounded wait for Prometheus to start and scrape once (interval 1 s).
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < give_up) {
      const std::string body = http_get(web_port, "/api/v1/query?query=" + query);
      if (!body.empty()) {
        result = nlohmann::json::parse(body, nullptr, false);
        if (!result.is_discarded() && result["status"] == "success" &&
            !result["data"]["result"].empty()) {
          break;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    ASSERT_FALSE(result.is_discarded());
    ASSERT_EQ(result["status"], "success") << result.dump();
    ASSERT_FALSE(result["data"]["result"].empty()) << "no data after 60 s: " << result.dump();
    const double median = std::stod(result["data"]["result"][0]["value"][1].get<std::string>());
    EXPECT_GT(median, 0.0);
    EXPECT_LT(median, 10.0);
  }
  fs::remove_all(dir);
}

TEST(PrometheusScrape, LiveExpositionPassesPromtool) {
  if (!fs::exists(kPromtool)) GTEST_SKIP() << kPromtool << " is absent (Debian package `prometheus`)";
  ServerHarness harness;
  v1::ForecastResponse response;
  grpc::ClientContext context;
  ASSERT_TRUE(harness.stub().Forecast(&context, forecast_request(2, 336, 60), &response).ok());
  const std::string body = harness.scrape();
  ASSERT_NE(body.find("tsserve_request_duration_seconds_bucket"), std::string::npos);
  FILE* promtool = ::popen((std::string(kPromtool) + " check metrics 2>&1").c_str(), "w");
  ASSERT_NE(promtool, nullptr);
  std::fwrite(body.data(), 1, body.size(), promtool);
  EXPECT_EQ(::pclose(promtool), 0) << "promtool rejected the exposition";
}

}  // namespace
}  // namespace tsserve::server::testing
