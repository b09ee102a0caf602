#pragma once
// A plain-socket HTTP/1.1 client for tests that must control every byte (a header over
// the limit, a body sent a byte at a time, a request cut short, keep-alive across
// requests). Real clients (curl, wrk, Python's urllib) drive the server elsewhere.

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tsserve::testing {

struct HttpReply {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;
  std::optional<std::string> header(const std::string& name) const;
};

class RawHttpConnection {
 public:
  // Connects to 127.0.0.1:port; throws std::runtime_error when it cannot.
  explicit RawHttpConnection(int port);
  ~RawHttpConnection();
  RawHttpConnection(const RawHttpConnection&) = delete;
  RawHttpConnection& operator=(const RawHttpConnection&) = delete;

  // Sends `bytes` as they are; false when the connection refused them (closed).
  bool send(const std::string& bytes);
  // Reads one reply (status line, headers, a Content-Length body), waiting at most
  // `limit`; nullopt when the connection closed or the time ran out first. An interim
  // "100 Continue" is a reply of its own.
  std::optional<HttpReply> read_reply(std::chrono::milliseconds limit = std::chrono::seconds(30));
  // The same for the answer to a HEAD request: its Content-Length names a body never sent.
  std::optional<HttpReply> read_head_reply(
      std::chrono::milliseconds limit = std::chrono::seconds(30));
  // Whether the server closed the connection: reads until end of stream, at most `limit`.
  bool closed_by_server(std::chrono::milliseconds limit = std::chrono::seconds(30));

 private:
  // Waits for bytes at most until `deadline`; false on end of stream or timeout.
  bool fill(std::chrono::steady_clock::time_point deadline);
  std::optional<HttpReply> read(std::chrono::milliseconds limit, bool with_body);

  int fd_ = -1;
  std::string buffer_;
};

// One request on a fresh connection: METHOD path, the headers given, the body (with its
// Content-Length). Throws std::runtime_error when no reply comes.
HttpReply http_call(int port, const std::string& method, const std::string& path,
                    const std::string& body = "",
                    const std::vector<std::pair<std::string, std::string>>& headers = {});

}  // namespace tsserve::testing
