#include "server/observability/metrics_http_endpoint.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace tsserve::server {
namespace {

constexpr size_t kMaxRequestBytes = 8192;

std::string response(const char* status, const char* type, const std::string& body) {
  return std::string("HTTP/1.1 ") + status + "\r\nContent-Type: " + type +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" +
         body;
}

void send_all(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;  // the scraper went away; nothing to recover
    sent += static_cast<size_t>(n);
  }
}

}  // namespace

MetricsHttpEndpoint::MetricsHttpEndpoint(const std::string& address,
                                         std::function<std::string()> render)
    : render_(std::move(render)) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos) {
    throw std::runtime_error("expected HOST:PORT");
  }
  std::string host = address.substr(0, colon);
  const std::string port = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const int lookup =
      ::getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &found);
  if (lookup != 0) {
    throw std::runtime_error(::gai_strerror(lookup));
  }
  std::string error = "no usable address";
  for (addrinfo* a = found; a != nullptr && listen_fd_ < 0; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int on = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 16) == 0) {
      listen_fd_ = fd;
    } else {
      error = std::strerror(errno);
      ::close(fd);
    }
  }
  ::freeaddrinfo(found);
  if (listen_fd_ < 0) throw std::runtime_error("cannot listen: " + error);

  sockaddr_storage bound{};
  socklen_t length = sizeof(bound);
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &length);
  port_ = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                            : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  if (::pipe2(wake_pipe_, O_CLOEXEC) != 0) {
    ::close(listen_fd_);
    throw std::runtime_error(std::string("metrics endpoint: pipe: ") + std::strerror(errno));
  }
  thread_ = std::thread([this] { serve(); });
}

MetricsHttpEndpoint::~MetricsHttpEndpoint() {
  const char stop = 1;
  (void)!::write(wake_pipe_[1], &stop, 1);
  thread_.join();
  ::close(listen_fd_);
  ::close(wake_pipe_[0]);
  ::close(wake_pipe_[1]);
}

void MetricsHttpEndpoint::serve() {
  pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_pipe_[0], POLLIN, 0}};
  for (;;) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    if ((fds[0].revents & POLLIN) == 0) continue;
    const int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    answer(client);
    ::close(client);
  }
}

void MetricsHttpEndpoint::answer(int client) const {
  // A scraper that stalls must not hold the endpoint for long.
  timeval timeout{2, 0};
  ::setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  ::setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  std::string request;
  char buffer[1024];
  while (request.find("\r\n\r\n") == std::string::npos && request.size() < kMaxRequestBytes) {
    const ssize_t n = ::recv(client, buffer, sizeof(buffer), 0);
    if (n <= 0) return;
    request.append(buffer, static_cast<size_t>(n));
  }
  const std::string line = request.substr(0, request.find("\r\n"));
  const char* text = "text/plain; charset=utf-8";
  if (line.rfind("GET ", 0) != 0 && line.rfind("HEAD ", 0) != 0) {
    send_all(client, response("405 Method Not Allowed", text, "only GET /metrics is served\n"));
    return;
  }
  const auto path_start = line.find(' ') + 1;
  const std::string path = line.substr(path_start, line.find(' ', path_start) - path_start);
  if (path != "/metrics" && path.rfind("/metrics?", 0) != 0) {
    send_all(client, response("404 Not Found", text, "metrics are at /metrics\n"));
    return;
  }
  std::string out = response("200 OK", "text/plain; version=0.0.4; charset=utf-8", render_());
  if (line.rfind("HEAD ", 0) == 0) out.resize(out.find("\r\n\r\n") + 4);
  send_all(client, out);
}

}  // namespace tsserve::server
