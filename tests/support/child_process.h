#pragma once
// Real processes for end-to-end tests: run a command to completion capturing its output,
// or keep a tsserve binary running on loopback port 0 and learn its ports from the one
// line it prints when it serves. Every wait is bounded.

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace tsserve::testing {

struct CommandResult {
  int exit_code = -1;  // -1: killed at the timeout or by a signal
  std::string out;
  std::string err;
};

// Runs argv[0] (a path) with the arguments; stdout and stderr are captured in full.
CommandResult run_command(const std::vector<std::string>& argv,
                          std::chrono::seconds timeout = std::chrono::seconds(120));

class ServerProcess {
 public:
  // Starts `binary --grpc-address 127.0.0.1:0 --http-address 127.0.0.1:0 --metrics-address
  // 127.0.0.1:0 extra...` and waits (up to 120 s) for its "tsserve listening grpc_port=X
  // metrics_port=Y http_port=Z" line.
  ServerProcess(const std::string& binary, const std::vector<std::string>& extra_args = {});
  ~ServerProcess();  // SIGKILL if still running
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  int grpc_port() const { return grpc_port_; }
  int metrics_port() const { return metrics_port_; }
  int http_port() const { return http_port_; }
  std::string target() const { return "127.0.0.1:" + std::to_string(grpc_port_); }
  // SIGTERM, then waits (up to `timeout`) for the exit; returns its exit code (-1 if it
  // had to be killed or died of a signal).
  int terminate(std::chrono::seconds timeout = std::chrono::seconds(60));
  // The server's stderr (its log) so far.
  std::string log() const;

 private:
  pid_t pid_ = -1;
  int grpc_port_ = 0;
  int metrics_port_ = 0;
  int http_port_ = 0;
  std::string log_path_;
};

// A plain HTTP GET on 127.0.0.1:port; the body ("" on failure).
std::string http_get(int port, const std::string& path);

// The value of the sample line `series` (name and labels as printed) in a Prometheus text
// exposition; nullopt when there is no such line. A test asserts the series is there
// before it compares the value: a missing or mislabelled series must fail, and nullopt
// compares less than every number (EXPECT_LT(metric_value(...), bound) would pass).
std::optional<double> metric_value(const std::string& exposition, const std::string& series);

// The sum over every sample of metric `name` whose labels include all of `labels`
// (name="value" pairs), whatever its other labels; 0 when none.
double metric_sum(const std::string& exposition, const std::string& name,
                  const std::vector<std::pair<std::string, std::string>>& labels);

// The sum over every sample matching `series` written as name{label="value",...} (or a bare
// name): its labels a subset of the sample's, whatever the sample's other labels (model,
// version). nullopt when no sample matches: an absent or renamed series fails an
// EXPECT_EQ against a number instead of reading as 0 (std::optional compares unequal).
std::optional<double> metric_total(const std::string& exposition, const std::string& series);

}  // namespace tsserve::testing
