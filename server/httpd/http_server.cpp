#include "server/httpd/http_server.h"

#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "server/codec/json/json_writer.h"
#include "server/httpd/http_read_limits.h"
#include "server/sync/mutex.h"

namespace tsserve::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

constexpr std::size_t kHeaderRoom = 4096;
constexpr std::size_t kKeptRoom = std::size_t{64} << 10;
// How long the accept loop pauses after a failed accept (EMFILE, ENFILE, ENOBUFS): the
// pending connection stays queued, so an immediate retry fails again and spins a core.
constexpr std::chrono::milliseconds kAcceptBackoff{100};
// The framing bound of `options` (http_read_limits.h).
std::size_t framing_bound_of(const HttpServerOptions& options) {
  return framing_bound(options.max_header_bytes, options.max_framing_bytes);
}

// The request's method, target and header fields, its body not yet read. Trailer fields
// (after a chunked body) are never among them: nothing decided on the head can change.
HttpRequest request_head(const http::request_header<>& message) {
  HttpRequest request;
  request.method = std::string(message.method_string());
  const beast::string_view target = message.target();
  const std::size_t question = target.find('?');
  request.path = std::string(target.substr(0, question));
  if (question != beast::string_view::npos) {
    request.query = std::string(target.substr(question + 1));
  }
  request.headers.reserve(8);
  for (const auto& field : message) {
    std::string name(field.name_string());
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    request.headers.emplace_back(std::move(name), std::string(field.value()));
  }
  return request;
}

// The answer to a connection over the cap, written straight to its socket (plaintext).
std::string busy_answer(std::size_t max_connections) {
  const std::string body =
      json_error_body("the server holds its maximum of " + std::to_string(max_connections) +
                      " connections (http_max_connections); retry later");
  return "HTTP/1.1 503 Service Unavailable\r\nServer: tsserve\r\nContent-Type: "
         "application/json\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

// "HOST:PORT" -> an endpoint; throws std::runtime_error naming what is wrong.
tcp::endpoint parse_endpoint(const std::string& address) {
  const std::size_t colon = address.rfind(':');
  if (colon == std::string::npos) {
    throw std::runtime_error("'" + address + "' is not HOST:PORT");
  }
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host.empty()) host = "0.0.0.0";
  if (host == "localhost") host = "127.0.0.1";
  const std::string port_text = address.substr(colon + 1);
  unsigned long port = 0;
  std::size_t used = 0;
  try {
    port = std::stoul(port_text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != port_text.size() || port > 65535) {
    throw std::runtime_error("'" + address + "': the port must be 0..65535");
  }
  beast::error_code ec;
  const asio::ip::address ip = asio::ip::make_address(host, ec);
  if (ec) throw std::runtime_error("'" + address + "': '" + host + "' is not an IP address");
  return {ip, static_cast<unsigned short>(port)};
}

}  // namespace

namespace {

// What the server asks of a connection, whatever its stream (plain TCP or TLS).
class SessionBase {
 public:
  virtual ~SessionBase() = default;
  // Waiting for a request with nothing of it received: the first to go at the cap.
  std::atomic<bool> idle{false};
  // Closes the connection if it waits for a request with nothing received (a drain).
  virtual void close_if_idle() = 0;
  // Closes the connection from the thread that stopped the server's threads.
  virtual void close_stopped() = 0;
};

using TlsStream = asio::ssl::stream<tcp::socket>;

// The TLS context of `options` (cert, key, and a CA to require client certificates
// with); throws std::runtime_error naming the file that cannot be used.
std::unique_ptr<asio::ssl::context> tls_context(const HttpServerOptions& options) {
  auto context = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
  context->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                       asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                       asio::ssl::context::no_tlsv1_1);
  const auto use = [](const char* what, const std::string& file, auto&& load) {
    try {
      load();
    } catch (const boost::system::system_error& e) {
      throw std::runtime_error(std::string(what) + " " + file + ": " + e.code().message());
    }
  };
  use("tls_cert", options.tls_cert, [&] { context->use_certificate_chain_file(options.tls_cert); });
  use("tls_key", options.tls_key,
      [&] { context->use_private_key_file(options.tls_key, asio::ssl::context::pem); });
  if (!options.tls_ca.empty()) {
    use("tls_ca", options.tls_ca, [&] { context->load_verify_file(options.tls_ca); });
    context->set_verify_mode(asio::ssl::verify_peer | asio::ssl::verify_fail_if_no_peer_cert);
  }
  return context;
}

}  // namespace

struct HttpServer::Impl : std::enable_shared_from_this<HttpServer::Impl> {
  Impl(const HttpServerOptions& opts, HttpHandler h) : options(opts), handler(std::move(h)) {}

  void accept();
  void on_accept(tcp::socket socket);
  // At the connection cap: closes an idle connection to make room; false when none is.
  bool make_room();
  void remember(const std::shared_ptr<SessionBase>& session);
  void forget(SessionBase* session);

  const HttpServerOptions options;
  const HttpHandler handler;
  asio::io_context io;
  tcp::acceptor acceptor{io};
  asio::steady_timer accept_pause{io};  // after a failed accept
  const std::string busy = busy_answer(options.max_connections);
  std::unique_ptr<asio::ssl::context> tls;  // null: plaintext
  std::vector<std::thread> threads;
  std::atomic<bool> closing{false};  // a drain: close each connection after its answer

  // Guards `stopped` and `sessions`. A responder posts its write holding it, so nothing is
  // posted to the io_context once the destructor has set `stopped`.
  Mutex mutex;
  bool stopped TSSERVE_GUARDED_BY(mutex) = false;
  std::unordered_map<SessionBase*, std::weak_ptr<SessionBase>> sessions TSSERVE_GUARDED_BY(mutex);
  std::condition_variable all_closed;  // notified when `sessions` becomes empty
};

namespace {

// One connection: (a TLS handshake,) read a request, hand it to the handler, write its
// answer, repeat. Its stream and timer live on one strand, so its handlers never run at
// once. Stream: tcp::socket, or TlsStream over one.
template <typename Stream>
class Session final : public SessionBase, public std::enable_shared_from_this<Session<Stream>> {
 public:
  template <typename... StreamArguments>
  Session(std::shared_ptr<HttpServer::Impl> server, StreamArguments&&... stream)
      : socket_(std::forward<StreamArguments>(stream)...),
        timer_(socket_.get_executor()),
        server_(std::move(server)) {
    // Beast reads no more than the buffer's free room (512 bytes at first): room for a
    // header block makes it one read.
    buffer_.reserve(kHeaderRoom);
    // The buffer holds a header block and then only framing: body bytes stream through it
    // into the body. So an endless chunk-size line or trailer stops at this bound.
    buffer_.max_size(server_->options.max_header_bytes + framing_bound_of(server_->options));
  }
  ~Session() override { server_->forget(this); }

  void start() {
    if constexpr (std::is_same_v<Stream, TlsStream>) {
      // The handshake counts against the first request's deadline.
      arm(server_->options.request_timeout);
      socket_.async_handshake(asio::ssl::stream_base::server,
                              [self = this->shared_from_this()](beast::error_code ec) {
                                self->disarm();
                                if (ec) return self->close();
                                self->read_header();
                              });
    } else {
      read_header();
    }
  }

  void close_if_idle() override {
    asio::dispatch(socket_.get_executor(), [self = this->shared_from_this()] {
      if (self->reading_ && self->nothing_received()) self->close();
    });
  }

  void close_stopped() override { close(); }

  // Posts the answer to this connection; once the server has stopped it is dropped.
  // Called more than once (a handler that answered, then threw), it sends the first.
  HttpResponder responder() {
    auto answered = std::make_shared<std::atomic<bool>>(false);
    return [self = this->shared_from_this(), answered](HttpResponse response) {
      if (answered->exchange(true)) return;
      MutexLock lock(self->server_->mutex);
      if (self->server_->stopped) return;
      asio::post(self->socket_.get_executor(), [self, response = std::move(response)]() mutable {
        self->answer(std::move(response));
      });
    };
  }

 private:
  // The deadline of the request now being read or the answer being written: when it
  // passes, the socket's operations are cancelled and `timed_out_` says why.
  void arm(std::chrono::milliseconds timeout) {
    timed_out_ = false;
    const std::uint64_t armed = ++deadline_;
    timer_.expires_after(timeout);
    timer_.async_wait([weak = this->weak_from_this(), armed](beast::error_code ec) {
      auto self = weak.lock();
      // A wait that completes after its operation finished (cancelled, or queued just
      // before disarm()) must not cancel the next one.
      if (ec || !self || self->deadline_ != armed) return;
      self->timed_out_ = true;
      beast::error_code ignored;
      auto& socket = beast::get_lowest_layer(self->socket_);
      socket.cancel(ignored);
      // A read that completed just before the deadline is not pending but queued: cancel()
      // misses it, and the read it starts next would run with no deadline at all (a client
      // sending a byte at a time then outlasts it). Closing the receiving side fails that
      // next read at once; the answer (408) still goes out on the sending side.
      if (self->reading_) socket.shutdown(asio::socket_base::shutdown_receive, ignored);
    });
  }

  void disarm() {
    ++deadline_;
    timer_.cancel();
  }

  // Waiting for a request of which no byte has arrived.
  bool nothing_received() const { return buffer_.size() == 0 && header_bytes_ == 0; }

  void read_header() {
    reading_ = true;
    idle.store(buffer_.size() == 0, std::memory_order_relaxed);
    head_method_ = false;
    parser_.emplace();
    parser_->header_limit(server_->options.max_header_bytes);
    parser_->body_limit(server_->options.max_body_bytes);
    header_bytes_ = 0;
    arm(server_->options.request_timeout);
    read_header_some();
  }

  // The header block is read by hand, not with http::async_read_header, so that its size
  // is counted put by put (http_read_limits.h).
  void read_header_some() {
    beast::error_code ec;
    if (parse_header_bytes(*parser_, buffer_, server_->options.max_header_bytes, &header_bytes_,
                           &ec)) {
      return on_header(ec);
    }
    const std::size_t room = buffer_.max_size() - buffer_.size();
    if (room == 0) return on_header(http::error::header_limit);
    socket_.async_read_some(
        buffer_.prepare(std::min<std::size_t>(room, kKeptRoom)),
        [self = this->shared_from_this()](beast::error_code read_ec, std::size_t received) {
          self->buffer_.commit(received);
          if (received > 0) self->idle.store(false, std::memory_order_relaxed);
          if (read_ec == asio::error::eof) {
            // As Beast's read: nothing of a request yet is the end of the stream; a part of
            // one is a partial message.
            if (!self->parser_->got_some()) {
              read_ec = self->buffer_.size() == 0 ? beast::error_code(http::error::end_of_stream)
                                                  : beast::error_code(http::error::partial_message);
            } else {
              self->parser_->put_eof(read_ec);
              if (!read_ec) read_ec = http::error::partial_message;
            }
          }
          if (read_ec) return self->on_header(read_ec);
          self->read_header_some();
        });
  }

  void on_header(beast::error_code ec) {
    idle.store(false, std::memory_order_relaxed);
    if (ec) return on_read_error(ec);
    auto& request = parser_->get();
    keep_alive_ = request.keep_alive();
    head_method_ = request.method() == http::verb::head;
    head_ = request_head(request);
    // Who asks and what they send is judged on the headers: a refused request costs no
    // body (nor a 100-continue that would invite it).
    if (server_->options.head_check) {
      std::optional<HttpResponse> refusal;
      try {
        refusal = server_->options.head_check(head_);
      } catch (const std::exception& e) {
        refusal = failure_answer(e.what());
      }
      if (refusal) return refuse_unread(std::move(*refusal));
    }
    // A declared body over max_body_bytes never gets here: the parser refuses it with the
    // header (body_limit, 413 below), before a byte of it is read.
    // Room for the body, up to the buffer's bound: it then arrives in a few large reads,
    // not dozens of small ones (measured: a 20 KB request's HTTP cost 164 -> 63 us,
    // BENCHMARKS.md).
    if (const auto length = parser_->content_length()) {
      buffer_.reserve(std::min<std::size_t>(buffer_.size() + static_cast<std::size_t>(*length),
                                            buffer_.max_size()));
    }
    const auto expect = request.find(http::field::expect);
    if (expect != request.end() && beast::iequals(expect->value(), "100-continue")) {
      // curl waits a second for this before it sends a body over 1 KiB.
      auto proceed = std::make_shared<http::response<http::empty_body>>(http::status::continue_,
                                                                        request.version());
      http::async_write(
          socket_, *proceed,
          [self = this->shared_from_this(), proceed](beast::error_code write_ec, std::size_t) {
            if (write_ec) return self->on_read_error(write_ec);
            self->read_body();
          });
      return;
    }
    read_body();
  }

  void read_body() {
    http::async_read(socket_, buffer_, *parser_,
                     [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                       self->on_request(ec);
                     });
  }

  void on_read_error(beast::error_code ec) {
    disarm();
    reading_ = false;
    if (timed_out_) {
      // Nothing received: an idle kept-alive connection, closed quietly.
      if (nothing_received() && !parser_->is_header_done()) return close();
      return refuse(408, "the request did not arrive whole within " +
                             std::to_string(server_->options.request_timeout.count()) + " ms");
    }
    if (ec == http::error::header_limit) {
      return refuse(431, "the request's header block is over " +
                             std::to_string(server_->options.max_header_bytes) + " bytes");
    }
    if (ec == http::error::buffer_overflow) {
      return refuse(400, "a chunk-size line, chunk extension or trailer is over " +
                             std::to_string(framing_bound_of(server_->options)) + " bytes");
    }
    if (ec == http::error::body_limit) {
      const auto length = parser_->content_length();
      return refuse(413, "the body is " +
                             (length ? std::to_string(*length) + " bytes" : std::string("longer")) +
                             ", over the server's max_message_bytes = " +
                             std::to_string(server_->options.max_body_bytes));
    }
    if (ec == http::error::end_of_stream || ec == asio::error::eof ||
        ec == asio::error::operation_aborted || ec == asio::error::connection_reset ||
        ec == asio::error::bad_descriptor) {
      return close();
    }
    return refuse(400, "malformed HTTP request: " + ec.message());
  }

  void on_request(beast::error_code ec) {
    if (ec) return on_read_error(ec);
    disarm();  // the handler's own deadline bounds the answer
    reading_ = false;
    http::request<http::string_body> message = parser_->release();
    parser_.reset();
    // A large body's room is not kept for the connection's next, likely small, request.
    if (buffer_.capacity() > kKeptRoom) buffer_.shrink_to_fit();
    HttpRequest request = std::move(head_);
    request.body = std::move(message.body());
    if constexpr (std::is_same_v<Stream, tcp::socket>) {
      watch_ = std::make_shared<ClientWatch>();
      request.client = watch_;
    }
    // One request's failure is its own: a throwing handler (bad_alloc included) gets a
    // 500, never the process's end. The door reports its own failures better (a request
    // id, a metric); this is the last line.
    const HttpResponder respond = responder();
    try {
      server_->handler(std::move(request), respond);
    } catch (const std::exception& e) {
      respond(failure_answer(e.what()));
    } catch (...) {
      respond(failure_answer("an unknown exception"));
    }
    watch_for_close();
  }

  static HttpResponse failure_answer(const char* what) {
    std::fprintf(stderr, "tsserve: an HTTP request failed: %s\n", what);
    HttpResponse response;
    response.status = 500;
    response.body = json_error_body("the server failed on this request (an internal error)");
    return response;
  }

  // While the handler works on the request, notices the client closing the connection
  // (the socket turns readable with nothing to read) and tells the request's watch.
  // Plaintext only: on TLS, bytes that arrive may be a close_notify or a next request,
  // which cannot be told apart without reading them.
  void watch_for_close() {
    if constexpr (std::is_same_v<Stream, tcp::socket>) {
      if (!watch_ || answering_) return;
      socket_.async_wait(
          tcp::socket::wait_read, [self = this->shared_from_this()](beast::error_code ec) {
            // Cancelled, or late: the answer came first.
            if (ec || self->answering_ || !self->watch_) return;
            // A peek tells: 0 bytes is the client's close, bytes are its next
            // request (it is still there), and EAGAIN a readiness already
            // spent (an edge from the body's last bytes, reported after the
            // body was read): wait again.
            char byte = 0;
            const ssize_t peeked =
                ::recv(self->socket_.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
            if (peeked > 0) return;
            if (peeked < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
              return self->watch_for_close();
            }
            self->watch_->notify_gone();
          });
    }
  }

  void answer(HttpResponse response) {
    answering_ = true;
    watch_.reset();
    if constexpr (std::is_same_v<Stream, tcp::socket>) {
      beast::error_code ignored;
      socket_.cancel(ignored);  // the close watch, if pending: the answer came first
    }
    auto message = std::make_shared<http::response<http::string_body>>();
    // HTTP/1.1 whatever the request's version (RFC 9110 6.2: the highest the server
    // conforms to); an HTTP/1.0 client's connection still closes after its answer.
    message->version(11);
    message->result(static_cast<unsigned>(response.status));
    message->set(http::field::server, "tsserve");
    message->set(http::field::content_type, response.content_type);
    for (auto& [name, value] : response.headers) message->insert(name, value);
    message->body() = std::move(response.body);
    message->keep_alive(keep_alive_ && !server_->closing.load(std::memory_order_acquire));
    message->prepare_payload();
    arm(server_->options.write_timeout);
    const auto written = [self = this->shared_from_this(), message](beast::error_code ec,
                                                                    std::size_t) {
      self->disarm();
      if (ec || !message->keep_alive()) {
        return self->body_unread_ && !ec ? self->drop_then_close() : self->close();
      }
      self->read_header();
    };
    if (head_method_) {
      // HEAD: the headers a GET would carry (its Content-Length included), no body: a
      // body here would be read as the start of the next answer (RFC 9110 9.3.2).
      auto serializer = std::make_shared<http::response_serializer<http::string_body>>(*message);
      http::async_write_header(
          socket_, *serializer,
          [written, serializer](beast::error_code ec, std::size_t n) { written(ec, n); });
      return;
    }
    http::async_write(socket_, *message, written);
  }

  // Answers a request refused on its head; its body stays unread.
  void refuse_unread(HttpResponse response) {
    keep_alive_ = false;
    body_unread_ = true;
    reading_ = false;
    disarm();
    answer(std::move(response));
  }

  // After refusing a request whose body may still be on its way: closing with unread
  // bytes makes the kernel reset the connection, and the client may lose the answer
  // (RFC 9112 9.6). So stop sending, then read and drop what comes until the client
  // closes, within the request deadline and the largest body a request could have.
  void drop_then_close() {
    beast::error_code ignored;
    beast::get_lowest_layer(socket_).shutdown(tcp::socket::shutdown_send, ignored);
    drop_budget_ = server_->options.max_body_bytes + framing_bound_of(server_->options);
    drop_buffer_.resize(std::size_t{16} * 1024);
    arm(server_->options.request_timeout);
    drop_some();
  }

  void drop_some() {
    beast::get_lowest_layer(socket_).async_read_some(
        asio::buffer(drop_buffer_),
        [self = this->shared_from_this()](beast::error_code ec, std::size_t n) {
          if (ec || n >= self->drop_budget_) return self->close();
          self->drop_budget_ -= n;
          self->drop_some();
        });
  }

  // Answers a request that will not reach the handler, then closes the connection.
  void refuse(int status, const std::string& message) {
    keep_alive_ = false;
    HttpResponse response;
    response.status = status;
    response.body = json_error_body(message);
    answer(std::move(response));
  }

  void close() {
    disarm();
    beast::error_code ignored;
    // TLS: no close_notify; each answer's length is framed, so nothing is truncated.
    beast::get_lowest_layer(socket_).shutdown(tcp::socket::shutdown_both, ignored);
    beast::get_lowest_layer(socket_).close(ignored);
    // The connection is gone, though the object may live on in an owed responder.
    server_->forget(this);
  }

  Stream socket_;
  asio::steady_timer timer_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  const std::shared_ptr<HttpServer::Impl> server_;
  HttpRequest head_;              // the request being read: its head, until its body arrives
  std::size_t header_bytes_ = 0;  // of the header block being read
  bool keep_alive_ = true;
  bool head_method_ = false;  // a HEAD request: its answer goes without a body
  bool body_unread_ = false;  // refused on its head: drop what the client still sends
  std::uint64_t drop_budget_ = 0;
  std::vector<char> drop_buffer_;
  bool reading_ = false;                // waiting for a request (for close_if_idle)
  bool answering_ = false;              // writing an answer
  std::shared_ptr<ClientWatch> watch_;  // the request's, until its answer
  bool timed_out_ = false;              // the armed deadline passed
  std::uint64_t deadline_ = 0;          // which arm() the timer serves
};

}  // namespace

void HttpServer::Impl::accept() {
  acceptor.async_accept(asio::make_strand(io), [this](beast::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
    if (ec) {
      // Out of descriptors or buffers: the connection stays queued; retry after a pause.
      accept_pause.expires_after(kAcceptBackoff);
      accept_pause.async_wait([this](beast::error_code wait_ec) {
        if (!wait_ec) accept();
      });
      return;
    }
    on_accept(std::move(socket));
    accept();
  });
}

void HttpServer::Impl::on_accept(tcp::socket socket) {
  beast::error_code ignored;
  std::size_t open = 0;
  {
    MutexLock lock(mutex);
    open = sessions.size();
  }
  if (open >= options.max_connections && !make_room()) {
    // Counted first: by the time the client reads the answer, the count is there.
    if (options.on_connection_refused) options.on_connection_refused();
    // Answered, not dropped: a client (or a probe) learns why. Non-blocking: the answer
    // fits a fresh socket's send buffer, and is lost rather than waited for if not.
    if (!tls) {
      socket.non_blocking(true, ignored);
      socket.send(asio::buffer(busy), 0, ignored);
    }
    socket.shutdown(tcp::socket::shutdown_both, ignored);
    socket.close(ignored);
    return;
  }
  socket.set_option(tcp::no_delay(true), ignored);
  // The session co-owns this Impl (its io_context) so that a socket never outlives it.
  if (tls) {
    auto session =
        std::make_shared<Session<TlsStream>>(shared_from_this(), std::move(socket), *tls);
    remember(session);
    session->start();
  } else {
    auto session = std::make_shared<Session<tcp::socket>>(shared_from_this(), std::move(socket));
    remember(session);
    session->start();
  }
}

bool HttpServer::Impl::make_room() {
  std::shared_ptr<SessionBase> idle;
  {
    MutexLock lock(mutex);
    for (auto& [raw, weak] : sessions) {
      if (!raw->idle.load(std::memory_order_relaxed)) continue;
      idle = weak.lock();
      if (idle) break;
    }
  }
  if (!idle) return false;
  // Closed on its own strand; until then the cap is exceeded by one.
  idle->idle.store(false, std::memory_order_relaxed);
  idle->close_if_idle();
  return true;
}

void HttpServer::Impl::remember(const std::shared_ptr<SessionBase>& session) {
  MutexLock lock(mutex);
  sessions.emplace(session.get(), session);
}

void HttpServer::Impl::forget(SessionBase* session) {
  MutexLock lock(mutex);
  sessions.erase(session);
  if (sessions.empty()) all_closed.notify_all();
}

HttpServer::HttpServer(const HttpServerOptions& options, HttpHandler handler)
    : impl_(std::make_shared<Impl>(options, std::move(handler))) {
  if (!options.tls_cert.empty() || !options.tls_key.empty()) impl_->tls = tls_context(options);
  const tcp::endpoint endpoint = parse_endpoint(options.address);
  beast::error_code ec;
  auto& acceptor = impl_->acceptor;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) throw std::runtime_error("cannot listen on '" + options.address + "': " + ec.message());
  impl_->accept();
  const int threads = options.threads > 0 ? options.threads : 1;
  for (int i = 0; i < threads; ++i) {
    impl_->threads.emplace_back([impl = impl_.get()] {
      // A handler that throws past its session's own catch ends run(), not the thread:
      // run() is resumed, so one request's failure never stops the door.
      for (;;) {
        try {
          impl->io.run();
          return;
        } catch (const std::exception& e) {
          std::fprintf(stderr, "tsserve: an HTTP thread's handler failed: %s\n", e.what());
        } catch (...) {
          std::fprintf(stderr, "tsserve: an HTTP thread's handler failed\n");
        }
      }
    });
  }
}

int HttpServer::port() const { return impl_->acceptor.local_endpoint().port(); }

void HttpServer::close_connections_after_answers() {
  impl_->closing.store(true, std::memory_order_release);
  std::vector<std::shared_ptr<SessionBase>> open;
  {
    MutexLock lock(impl_->mutex);
    for (auto& [raw, weak] : impl_->sessions)
      if (auto session = weak.lock()) open.push_back(std::move(session));
  }
  for (auto& session : open) session->close_if_idle();
}

bool HttpServer::wait_connections_closed(std::chrono::steady_clock::time_point deadline) {
  MutexLock lock(impl_->mutex);
  while (!impl_->sessions.empty()) {
    if (impl_->all_closed.wait_until(lock.native(), deadline) == std::cv_status::timeout) {
      return impl_->sessions.empty();
    }
  }
  return true;
}

HttpServer::~HttpServer() {
  try {
    {
      MutexLock lock(impl_->mutex);
      impl_->stopped = true;  // from here no responder posts
    }
    impl_->io.stop();
    for (auto& thread : impl_->threads) thread.join();
    // No handler runs now: close the acceptor and every connection from this thread, then
    // run what that aborted to its end, which releases the sessions the io_context held.
    beast::error_code ignored;
    impl_->acceptor.close(ignored);
    std::vector<std::shared_ptr<SessionBase>> open;
    {
      MutexLock lock(impl_->mutex);
      for (auto& [raw, weak] : impl_->sessions)
        if (auto session = weak.lock()) open.push_back(std::move(session));
    }
    for (auto& session : open) session->close_stopped();
    open.clear();
    impl_->io.restart();
    impl_->io.run();
  } catch (const std::exception& e) {
    // A destructor cannot pass it on; the process is going down with this server anyway.
    std::fprintf(stderr, "tsserve: stopping the HTTP server: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "tsserve: stopping the HTTP server: an unknown error\n");
  }
}

}  // namespace tsserve::server
