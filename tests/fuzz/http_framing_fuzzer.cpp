// Fuzz target: the HTTP server's framing (server/httpd/http_server.cpp) under hostile bytes:
// one connection's stream, cut into reads at the fuzzer's points, read the way the server
// reads it: Beast's request_parser<string_body> with header_limit(max_header_bytes) and
// body_limit(max_body_bytes), into one flat_buffer (4 KiB reserved, max_size =
// max_header_bytes + the framing bound) kept across the connection's requests; the header
// block through the server's own parse_header_bytes (http_read_limits.h, its consumed
// bytes counted), the body through http::read (the synchronous twin of the server's
// async_read: the same read_some loop, Beast's impl/read.hpp), with the server's room for
// a declared body and its release of a large buffer after each request. Requests follow
// one another on the connection (keep-alive, pipelined bytes left in the buffer) until one
// is refused, the stream ends or one is not kept alive.
//
// TSSERVE_FUZZ_TRACE=1 prints each request's fate (handed on, or the answer refusing it).
//
// Mirrors of the server's code (anonymous there, so copied): Session's constructor,
// read_header_some()'s read loop around parse_header_bytes, on_header() (the reserve),
// on_request() (shrink_to_fit past 64 KiB), request_head() and on_read_error()'s mapping
// of errors to answers. Keep them in step.
//
// Input: byte 0 chooses the limits: even, HttpServerOptions' defaults (16 KiB headers,
// 16 MiB body, 32 KiB framing); odd, small ones from the next 4 bytes (headers 16-1036
// bytes, framing 1-256, body 0-65535), so that every limit is in reach of short inputs.
// Then a byte n (n % 17 reads sizes of 2 bytes each: 1-65536; none: each read fills the
// buffer's free room), then the stream. In the stream, 0xFE b1 b2 c stands for the byte c
// repeated 1 + (b1 | b2 << 8) times (so a 70 KB chunk-size line or trailer is a 12-byte
// input); the whole stream is cut at 1 MiB.
//
// Invariants (server terms): the buffer's size never exceeds its max_size, nor its
// capacity max(4 KiB, max_size); a header block over the limit is refused as such (431),
// never as framing (400: buffer_overflow only once the header is done); a request handed
// on has a start line and header fields within max_header_bytes, a body within
// max_body_bytes and exactly its Content-Length when one was declared, and trailer fields
// (parsed into the message, not handed on) within the buffer's bound; every read is
// given room (never a read of 0 bytes asked); a connection ends after a finite number
// of reads.

#include <algorithm>
#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_input.h"
#include "fuzz_target.h"
#include "server/httpd/http_read_limits.h"
#include "server/httpd/http_server.h"

namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;

// http_server.cpp's constants.
constexpr std::size_t kHeaderRoom = 4096;
constexpr std::size_t kKeptRoom = std::size_t{64} << 10;
constexpr std::size_t kMaxStream = std::size_t{1} << 20;
constexpr unsigned char kRepeat = 0xFE;

struct Limits {
  std::uint32_t header = 0;
  std::uint64_t body = 0;
  std::size_t framing = 0;
};

// A client's bytes as the server's socket gives them: each read_some returns at most the
// next read size (cycling through the fuzzer's), at least 1 byte, then end of stream.
class PieceStream {
 public:
  PieceStream(const std::string& bytes, std::vector<std::size_t> reads,
              const beast::flat_buffer& buffer, std::size_t max_size)
      : bytes_(bytes), reads_(std::move(reads)), buffer_(buffer), max_size_(max_size) {}

  template <typename MutableBuffers>
  std::size_t read_some(const MutableBuffers& buffers, beast::error_code& ec) {
    ec = {};
    ++calls_;
    const std::size_t room = net::buffer_size(buffers);
    FUZZ_CHECK(room > 0, "a read with no room asked (the server's loop would spin)");
    FUZZ_CHECK(buffer_.size() + room <= max_size_,
               "a read prepared past the buffer's max: " + std::to_string(buffer_.size()) + " + " +
                   std::to_string(room) + " > " + std::to_string(max_size_));
    if (position_ == bytes_.size()) {
      ec = net::error::eof;
      return 0;
    }
    std::size_t take = std::min(room, bytes_.size() - position_);
    if (!reads_.empty()) take = std::min(take, reads_[next_++ % reads_.size()]);
    take = net::buffer_copy(buffers, net::buffer(bytes_.data() + position_, take));
    position_ += take;
    return take;
  }

  template <typename MutableBuffers>
  std::size_t read_some(const MutableBuffers& buffers) {
    beast::error_code ec;
    const std::size_t n = read_some(buffers, ec);
    if (ec) throw beast::system_error(ec);
    return n;
  }

  std::size_t calls() const { return calls_; }

 private:
  const std::string& bytes_;
  const std::vector<std::size_t> reads_;
  const beast::flat_buffer& buffer_;
  const std::size_t max_size_;
  std::size_t position_ = 0;
  std::size_t next_ = 0;
  std::size_t calls_ = 0;
};

std::string stream_of(tsserve::fuzz::FuzzInput& input) {
  const std::string raw = input.rest();
  std::string out;
  out.reserve(std::min(raw.size(), kMaxStream));
  for (std::size_t i = 0; i < raw.size() && out.size() < kMaxStream; ++i) {
    const auto c = static_cast<unsigned char>(raw[i]);
    if (c == kRepeat && i + 3 < raw.size()) {
      const std::size_t count =
          1 + (static_cast<unsigned char>(raw[i + 1]) |
               (static_cast<std::size_t>(static_cast<unsigned char>(raw[i + 2])) << 8));
      out.append(std::min(count, kMaxStream - out.size()), raw[i + 3]);
      i += 3;
    } else {
      out += raw[i];
    }
  }
  return out;
}

// TSSERVE_FUZZ_TRACE=1: each request's fate on stderr, to read what an input does.
const bool kTrace = std::getenv("TSSERVE_FUZZ_TRACE") != nullptr;

// The server's answer to a read error (Session::on_read_error); 0: closed without one.
int answer_to(const beast::error_code& ec) {
  if (ec == http::error::header_limit) return 431;
  if (ec == http::error::buffer_overflow) return 400;
  if (ec == http::error::body_limit) return 413;
  if (ec == http::error::end_of_stream || ec == net::error::eof) return 0;
  return 400;
}

void trace_refusal(int request, const char* phase, const beast::error_code& ec) {
  if (kTrace) {
    std::fprintf(stderr, "request %d: %s: %s -> %d\n", request, phase, ec.message().c_str(),
                 answer_to(ec));
  }
}

// Runs one of Beast's reads; false when it threw (the server's io.run() catch then logs
// it and drops the connection, answering nothing).
template <typename Read>
bool read_or_throw(int request, const char* phase, Read read) {
  try {
    read();
    return true;
  } catch (const std::exception& e) {
    if (kTrace) std::fprintf(stderr, "request %d: %s: threw %s\n", request, phase, e.what());
    FUZZ_CHECK(false, std::string("the ") + phase + " read threw (" + e.what() +
                          "): the server drops the connection unanswered");
    return false;
  }
}

std::size_t fields_bytes(const http::fields& fields) {
  std::size_t total = 0;
  for (const auto& field : fields) total += field.name_string().size() + field.value().size();
  return total;
}

// One connection: the server's read loop over `stream`.
void serve_connection(const Limits& limits, const std::string& bytes,
                      std::vector<std::size_t> reads) {
  // Session's constructor.
  beast::flat_buffer buffer;
  buffer.reserve(kHeaderRoom);
  const std::size_t max_size =
      limits.header + tsserve::server::framing_bound(limits.header, limits.framing);
  buffer.max_size(max_size);
  PieceStream stream(bytes, std::move(reads), buffer, max_size);

  const auto check_buffer = [&](const char* when) {
    FUZZ_CHECK(buffer.size() <= max_size, std::string(when) + ": the buffer holds " +
                                              std::to_string(buffer.size()) + " bytes, over " +
                                              std::to_string(max_size));
    FUZZ_CHECK(
        buffer.capacity() <= std::max(kHeaderRoom, max_size),
        std::string(when) + ": the buffer's capacity is " + std::to_string(buffer.capacity()));
  };

  for (int request = 0;; ++request) {
    FUZZ_CHECK(request <= static_cast<int>(bytes.size()),
               "more requests than bytes on one connection");
    // read_header().
    std::optional<http::request_parser<http::string_body>> parser;
    parser.emplace();
    parser->header_limit(limits.header);
    parser->body_limit(limits.body);
    beast::error_code ec;
    // read_header_some(): the server's own header parse (http_read_limits.h), fed by reads
    // of at most the buffer's room.
    std::size_t consumed = 0;
    const auto read_header = [&] {
      while (!tsserve::server::parse_header_bytes(*parser, buffer, limits.header, &consumed, &ec)) {
        const std::size_t room = buffer.max_size() - buffer.size();
        if (room == 0) {
          ec = http::error::header_limit;
          return;
        }
        const std::size_t received =
            stream.read_some(buffer.prepare(std::min<std::size_t>(room, kKeptRoom)), ec);
        buffer.commit(received);
        if (ec == net::error::eof) {
          if (!parser->got_some()) {
            ec = buffer.size() == 0 ? beast::error_code(http::error::end_of_stream)
                                    : beast::error_code(http::error::partial_message);
          } else {
            parser->put_eof(ec);
            if (!ec) ec = http::error::partial_message;
          }
        }
        if (ec) return;
      }
    };
    if (!read_or_throw(request, "header", read_header)) return;
    check_buffer("after the header");
    if (ec) {
      // on_read_error(): header_limit 431, buffer_overflow 400 (framing), body_limit 413
      // (a declared length), end of stream closed, anything else 400; all end the
      // connection.
      trace_refusal(request, "header", ec);
      FUZZ_CHECK(ec != http::error::buffer_overflow,
                 "the header block was refused as framing (400), not by its limit (431)");
      return;
    }
    // on_header(): the head the handler and the head check see.
    const auto& head = parser->get();
    const std::size_t start_line = head.method_string().size() + head.target().size();
    const std::size_t header_bytes = fields_bytes(head.base());
    FUZZ_CHECK(start_line + header_bytes <= limits.header,
               "a header block of " + std::to_string(start_line + header_bytes) +
                   " bytes passed header_limit " + std::to_string(limits.header));
    const bool keep_alive = head.keep_alive();
    const auto declared = parser->content_length();
    if (declared) {
      FUZZ_CHECK(*declared <= limits.body, "a declared body over body_limit passed the header");
      buffer.reserve(std::min<std::size_t>(buffer.size() + static_cast<std::size_t>(*declared),
                                           buffer.max_size()));
      check_buffer("after the reserve");
    }
    // read_body().
    if (!read_or_throw(request, "body", [&] { http::read(stream, buffer, *parser, ec); })) return;
    check_buffer("after the body");
    if (ec) return trace_refusal(request, "body", ec);  // on_read_error(), as above
    // on_request().
    FUZZ_CHECK(parser->is_done(), "a request handed on before its end");
    http::request<http::string_body> message = parser->release();
    parser.reset();
    if (buffer.capacity() > kKeptRoom) buffer.shrink_to_fit();
    check_buffer("after the release");
    FUZZ_CHECK(message.body().size() <= limits.body,
               "a body of " + std::to_string(message.body().size()) + " bytes passed body_limit " +
                   std::to_string(limits.body));
    if (declared) {
      FUZZ_CHECK(message.body().size() == *declared,
                 "a body of " + std::to_string(message.body().size()) +
                     " bytes for Content-Length " + std::to_string(*declared));
    }
    // Trailer fields join the message's fields (the server hands on the head it took
    // before the body, so they go nowhere): bounded by the buffer all the same.
    FUZZ_CHECK(fields_bytes(message.base()) <= header_bytes + max_size,
               "trailer fields past the buffer's bound");
    FUZZ_CHECK(stream.calls() <= bytes.size() + 2 * (request + 1),
               "more reads than bytes: " + std::to_string(stream.calls()));
    if (kTrace) {
      std::fprintf(stderr, "request %d: %s %s, %zu header bytes, %zu body bytes%s\n", request,
                   std::string(message.method_string()).c_str(),
                   std::string(message.target()).c_str(), header_bytes, message.body().size(),
                   keep_alive ? "" : ", then closed");
    }
    if (!keep_alive) return;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tsserve::fuzz::FuzzInput input(data, size);
  const tsserve::server::HttpServerOptions defaults;
  Limits limits{defaults.max_header_bytes, defaults.max_body_bytes, defaults.max_framing_bytes};
  if (input.coin()) {
    limits.header = 16 + 4 * static_cast<std::uint32_t>(input.byte());
    limits.framing = 1 + input.byte();
    limits.body = input.bits(2);
  }
  std::vector<std::size_t> reads(input.byte() % 17);
  for (std::size_t& read : reads) read = 1 + input.bits(2);
  const std::string bytes = stream_of(input);
  serve_connection(limits, bytes, std::move(reads));
  return 0;
}
