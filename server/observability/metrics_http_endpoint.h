#pragma once
// A minimal HTTP/1.1 endpoint that answers GET /metrics with a rendered text body.
//
// Why not prometheus-cpp's Exposer: it runs on civetweb, and Debian's civetweb gives its
// threads a fixed 100 KiB stack, below what glibc requires once LibTorch's static TLS is
// loaded; pthread_create fails with EINVAL and the Exposer cannot start in tsserve.
// Scrapes are rare and small, so one thread serving one connection at a time is enough.
//
// Thread safety: `render` is called on the endpoint's thread. The destructor stops the
// thread promptly (a self-pipe wakes the poll) and joins it.

#include <functional>
#include <string>
#include <thread>

namespace tsserve::server {

class MetricsHttpEndpoint {
 public:
  // Binds "HOST:PORT" (port 0 picks a free port) and starts serving. Throws
  // std::runtime_error with the reason when it cannot (the caller names the address).
  MetricsHttpEndpoint(const std::string& address, std::function<std::string()> render);
  MetricsHttpEndpoint(const MetricsHttpEndpoint&) = delete;
  MetricsHttpEndpoint& operator=(const MetricsHttpEndpoint&) = delete;
  ~MetricsHttpEndpoint();

  int port() const { return port_; }

 private:
  void serve();
  void answer(int client) const;

  const std::function<std::string()> render_;
  int listen_fd_ = -1;
  int wake_pipe_[2] = {-1, -1};
  int port_ = 0;
  std::thread thread_;
};

}  // namespace tsserve::server
