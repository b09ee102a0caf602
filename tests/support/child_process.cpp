#include "child_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace tsserve::testing {
namespace {

std::string temp_path(const std::string& stem) {
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/" + stem + ".XXXXXX";
  const int fd = ::mkstemp(path.data());
  if (fd < 0) throw std::runtime_error("mkstemp failed for " + path);
  ::close(fd);
  return path;
}

std::string slurp(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

pid_t spawn(const std::vector<std::string>& argv, int stdout_fd, const std::string& stderr_path,
            const std::string& stdout_path) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (stdout_fd >= 0) {
    posix_spawn_file_actions_adddup2(&actions, stdout_fd, STDOUT_FILENO);
  } else {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdout_path.c_str(),
                                     O_WRONLY | O_TRUNC, 0644);
  }
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path.c_str(), O_WRONLY | O_TRUNC,
                                   0644);
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int error = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) throw std::runtime_error("cannot start " + argv[0]);
  return pid;
}

// Waits for `pid` up to `timeout` (checking every 5 ms: a bounded wait on a child, no
// event to block on without a signal handler); kills it at the timeout.
int wait_for_exit(pid_t pid, std::chrono::steady_clock::duration timeout) {
  const auto give_up = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > give_up) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

CommandResult run_command(const std::vector<std::string>& argv, std::chrono::seconds timeout) {
  const std::string out_path = temp_path("tsserve-cmd-out");
  const std::string err_path = temp_path("tsserve-cmd-err");
  const pid_t pid = spawn(argv, -1, err_path, out_path);
  CommandResult result;
  result.exit_code = wait_for_exit(pid, timeout);
  result.out = slurp(out_path);
  result.err = slurp(err_path);
  ::unlink(out_path.c_str());
  ::unlink(err_path.c_str());
  return result;
}

ServerProcess::ServerProcess(const std::string& binary, const std::vector<std::string>& extra_args)
    : log_path_(temp_path("tsserve-server-log")) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) throw std::runtime_error("pipe failed");
  std::vector<std::string> argv{binary,        "--grpc-address",    "127.0.0.1:0", "--http-address",
                                "127.0.0.1:0", "--metrics-address", "127.0.0.1:0"};
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  pid_ = spawn(argv, pipe_fds[1], log_path_, "");
  ::close(pipe_fds[1]);

  // The listening line is the server's first stdout output; poll() bounds the wait.
  std::string line;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (line.find('\n') == std::string::npos && std::chrono::steady_clock::now() < give_up) {
    pollfd fd{pipe_fds[0], POLLIN, 0};
    if (::poll(&fd, 1, 1000) <= 0) continue;
    char buffer[256];
    const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
    if (n <= 0) break;
    line.append(buffer, static_cast<size_t>(n));
  }
  ::close(pipe_fds[0]);  // later stdout output goes nowhere (the server prints none)
  std::smatch match;
  if (!std::regex_search(line, match,
                         std::regex("grpc_port=(\\d+) metrics_port=(\\d+) http_port=(\\d+)"))) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
    throw std::runtime_error("tsserve did not report listening; stdout '" + line + "', log:\n" +
                             slurp(log_path_));
  }
  grpc_port_ = std::stoi(match[1]);
  metrics_port_ = std::stoi(match[2]);
  http_port_ = std::stoi(match[3]);
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  ::unlink(log_path_.c_str());
}

int ServerProcess::terminate(std::chrono::seconds timeout) {
  ::kill(pid_, SIGTERM);
  const int code = wait_for_exit(pid_, timeout);
  pid_ = -1;
  return code;
}

std::string ServerProcess::log() const { return slurp(log_path_); }

std::string http_get(int port, const std::string& path) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string reply;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
    const std::string request =
        "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if (::write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      char buffer[8192];
      ssize_t n;
      while ((n = ::read(fd, buffer, sizeof buffer)) > 0)
        reply.append(buffer, static_cast<size_t>(n));
    }
  }
  ::close(fd);
  const auto body = reply.find("\r\n\r\n");
  return body == std::string::npos ? "" : reply.substr(body + 4);
}

std::optional<double> metric_value(const std::string& exposition, const std::string& series) {
  std::istringstream lines(exposition);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.size() > series.size() && line.compare(0, series.size(), series) == 0 &&
        line[series.size()] == ' ') {
      return std::stod(line.substr(series.size() + 1));
    }
  }
  return std::nullopt;
}

namespace {
// metric_sum, also counting the samples that matched (0: the series is absent).
double metric_sum_counting(const std::string& exposition, const std::string& name,
                           const std::vector<std::pair<std::string, std::string>>& labels,
                           int& matched) {
  matched = 0;
  std::istringstream lines(exposition);
  std::string line;
  double sum = 0;
  while (std::getline(lines, line)) {
    if (line.compare(0, name.size() + 1, name + "{") != 0) continue;
    const auto close = line.find("} ");
    if (close == std::string::npos) continue;
    const std::string label_text = line.substr(name.size(), close - name.size() + 1);
    bool all = true;
    for (const auto& [label, value] : labels) {
      const std::string pair = label + "=\"" + value + "\"";
      all = all && (label_text.find("{" + pair) != std::string::npos ||
                    label_text.find("," + pair) != std::string::npos);
    }
    if (all) {
      sum += std::stod(line.substr(close + 2));
      ++matched;
    }
  }
  return sum;
}

}  // namespace

double metric_sum(const std::string& exposition, const std::string& name,
                  const std::vector<std::pair<std::string, std::string>>& labels) {
  int matched = 0;
  return metric_sum_counting(exposition, name, labels, matched);
}

std::optional<double> metric_total(const std::string& exposition, const std::string& series) {
  const std::size_t open = series.find('{');
  const std::string name = series.substr(0, open);
  std::vector<std::pair<std::string, std::string>> labels;
  if (open != std::string::npos) {
    // label="value" pairs; values in these tests hold no quotes or commas.
    std::size_t at = open + 1;
    while (at < series.size() && series[at] != '}') {
      const std::size_t equals = series.find("=\"", at);
      const std::size_t end = series.find('"', equals + 2);
      labels.emplace_back(series.substr(at, equals - at),
                          series.substr(equals + 2, end - equals - 2));
      at = end + 1;
      if (at < series.size() && series[at] == ',') ++at;
    }
  }
  int matched = 0;
  double total = metric_sum_counting(exposition, name, labels, matched);
  if (labels.empty()) {
    if (const std::optional<double> bare = metric_value(exposition, name)) {
      total += *bare;
      ++matched;
    }
  }
  if (matched == 0) return std::nullopt;  // absent: a test comparing it must fail
  return total;
}

}  // namespace tsserve::testing
