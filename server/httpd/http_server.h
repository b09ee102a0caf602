#pragma once
// tsserve's HTTP/1.1 server (Boost.Beast on Asio; why this library: BENCHMARKS.md, "HTTP
// libraries"), for the REST and JSON doors and the metrics page. Keep-alive, limits
// enforced before the body is read, and a deadline for each request to arrive whole,
// each answered with a JSON error body naming the limit:
//
//   a request whose header block is over max_header_bytes        431, connection closed
//   a body (declared or chunked) over max_body_bytes             413, before it is read
//   a request not received whole within request_timeout         408, connection closed
//   (a slow-loris client sending a byte a second is cut off by the same deadline; an idle
//   kept-alive connection is closed after it)
//   malformed HTTP                                               400, connection closed
//   a chunk-size line, chunk extension or trailer over           400, connection closed
//     max_framing_bytes (the read buffer's room past the header block)
//   a refusal by the head check (auth, media type, origin...)    its answer, the body
//     unread, connection closed (the bytes the client still sends are read and dropped,
//     bounded by the deadline, so it sees the answer instead of a reset)
//   a connection over max_connections                            an idle connection is
//     closed to make room, or else the new one is answered 503 and closed
//   a handler that throws                                        500, the server lives
//
// An accept that fails (EMFILE: no file descriptors left) is retried after a pause, not at
// once, so the loop never spins. A HEAD request's answer carries its headers only.
//
// Every request that arrives whole goes to the handler, on one of the server's threads;
// the handler may answer at once or later from any thread (the responder posts the write
// to the connection). A connection carries one request at a time (no pipelining: the
// next is read after the answer is written). A plaintext client that closes its
// connection while its request is being answered is reported through the request's
// ClientWatch (http_message.h).
//
// Its threads are the server's own (std::thread, default stacks), so it starts beside
// LibTorch, where civetweb's 100 KiB stacks could not.
//
// Lifetime: the destructor stops accepting, closes every connection (answers still owed
// are dropped) and joins the threads; a responder called after that does nothing.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "server/httpd/http_message.h"

namespace tsserve::server {

struct HttpServerOptions {
  std::string address;  // "HOST:PORT"; port 0 picks a free port
  int threads = 1;
  std::uint64_t max_body_bytes = std::uint64_t{16} << 20;  // 16 MiB
  std::uint32_t max_header_bytes = 16 * 1024;
  // The read buffer's room past the header block: a chunk-size line with its extensions,
  // or a trailer, longer than this is refused (the body itself streams through it). With
  // max_header_bytes at most 65535 (a header field's most, in Beast).
  std::size_t max_framing_bytes = std::size_t{32} * 1024;
  // Connections open at once (each holds a file descriptor and its buffers).
  std::size_t max_connections = 512;
  // From a connection's first byte (or its previous answer) to the request's last byte.
  std::chrono::milliseconds request_timeout{30'000};
  // How long a client may take to read an answer.
  std::chrono::milliseconds write_timeout{30'000};
  // HTTPS with the gRPC port's files (PEM): a certificate chain and its key; with a CA,
  // clients must show a certificate it signed (mutual TLS). Empty: plaintext. TLS 1.2+.
  std::string tls_cert, tls_key, tls_ca;
  // Checks each request on its header block, before its body is read or a 100-continue
  // is sent (http_message.h). Null: every request is read whole.
  HttpHeadCheck head_check;
  // Told of each connection refused over max_connections (for a metric); any thread.
  std::function<void()> on_connection_refused;
};

class HttpServer {
 public:
  // Binds `options.address` and serves on `options.threads` threads. Throws
  // std::runtime_error saying why when the address cannot be served or a TLS file used.
  HttpServer(const HttpServerOptions& options, HttpHandler handler);
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;
  ~HttpServer();

  int port() const;

  // For a drain: from now on each answer closes its connection, and connections waiting
  // for a request are closed. New connections are still served (and closed after their
  // answer), so a caller learns "unavailable" rather than "refused".
  void close_connections_after_answers();
  // Waits until every connection has closed (its socket, whatever still holds its
  // responder) or `deadline` passes; true when all closed.
  // After close_connections_after_answers() and once every owed answer has been sent
  // (the batchers drained), the connections close by themselves.
  bool wait_connections_closed(std::chrono::steady_clock::time_point deadline);

  struct Impl;  // the library's side (http_server.cpp)

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace tsserve::server
