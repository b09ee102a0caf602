#pragma once
// The calling thread's simdjson parser, lent for one body and reused from body to body so
// that a thread parsing many small requests allocates its buffers once. A parser keeps
// buffers sized for the largest body it has read (several times the body: structural
// indexes and a string buffer), so one maximum-size body would otherwise leave every I/O
// thread holding tens of MB for its lifetime; a lease that read a body larger than
// kKeptJsonCapacity gives the buffers back when it ends.
//
//   ReusedJsonParser parser;      // declared before the document: it must outlive it
//   json_od::document document;
//   open_json_object(body, parser.get(), &document, ...);
//
// One lease at a time per thread: a second lease taken while the first is alive (a parse
// inside a parse) gets a parser of its own, freed with it.

#include <simdjson.h>

#include <cstddef>
#include <memory>

namespace tsserve::server {

// The largest body whose parser buffers a thread keeps. The common requests are far below
// it (a 336 x 7 forecast is about 20 KB of JSON; a full 448-row batch about 1 MB); above
// it the parse itself costs more than allocating the buffers afresh.
inline constexpr std::size_t kKeptJsonCapacity = std::size_t{1} << 20;

class ReusedJsonParser {
 public:
  ReusedJsonParser();
  ~ReusedJsonParser();
  ReusedJsonParser(const ReusedJsonParser&) = delete;
  ReusedJsonParser& operator=(const ReusedJsonParser&) = delete;

  simdjson::ondemand::parser& get() { return *parser_; }

  // The capacity (largest body, bytes) of the parser this thread keeps between leases; 0
  // when it keeps none. For tests and diagnostics.
  static std::size_t kept_capacity();

 private:
  simdjson::ondemand::parser* parser_;
  std::unique_ptr<simdjson::ondemand::parser> own_;  // set for a nested lease
};

}  // namespace tsserve::server
