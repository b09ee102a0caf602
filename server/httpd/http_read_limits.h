#pragma once
// How HttpServer (http_server.cpp) bounds what it reads of a request before the request
// reaches a handler, as functions of their own so that the framing fuzzer
// (tests/fuzz/http_framing_fuzzer.cpp) runs the very same code over hostile bytes.
//
//  - The header block is fed to Beast's parser by hand and its consumed bytes added up:
//    Beast checks header_limit against the bytes not yet parsed and consumes finished
//    fields as it goes, so within one of its reads a client that ends every write one byte
//    into its next field would pass any size.
//  - The read buffer holds a header block, then only framing (a chunk-size line with its
//    extensions, a trailer; the body streams through it). Its bound stays under 65535
//    bytes, the most a Beast field value holds: past it Beast throws from inside a read,
//    where no answer can be given.

#include <algorithm>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>
#include <cstddef>

namespace tsserve::server {

inline constexpr std::size_t kMaxFieldBytes = 65535;

// The framing bound in force: `max_framing_bytes`, within kMaxFieldBytes with the header.
inline std::size_t framing_bound(std::size_t max_header_bytes, std::size_t max_framing_bytes) {
  const std::size_t room =
      max_header_bytes < kMaxFieldBytes ? kMaxFieldBytes - max_header_bytes : 0;
  return std::min(max_framing_bytes, room);
}

// Feeds `buffer` to `parser` (a Beast request parser still in its header); `*consumed`
// counts the header bytes it took so far. True when the header block is done, or refused
// (then `*ec` says why: header_limit past `max_header_bytes`, or the parser's error);
// false when more bytes are needed.
template <typename Parser, typename DynamicBuffer>
bool parse_header_bytes(Parser& parser, DynamicBuffer& buffer, std::size_t max_header_bytes,
                        std::size_t* consumed, boost::beast::error_code* ec) {
  namespace http = boost::beast::http;
  while (buffer.size() > 0) {
    *ec = {};
    const std::size_t used = parser.put(buffer.data(), *ec);
    buffer.consume(used);
    *consumed += used;
    if (*consumed > max_header_bytes) {
      *ec = http::error::header_limit;
      return true;
    }
    if (*ec == http::error::need_more) break;
    if (*ec || parser.is_header_done()) return true;
    if (used == 0) break;
  }
  *ec = {};
  return false;
}

}  // namespace tsserve::server
