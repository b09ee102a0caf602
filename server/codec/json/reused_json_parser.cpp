#include "server/codec/json/reused_json_parser.h"

namespace tsserve::server {
namespace {

struct ThreadParser {
  std::unique_ptr<simdjson::ondemand::parser> parser;  // null until first lent, or given back
  bool lent = false;
};

ThreadParser& thread_parser() {
  thread_local ThreadParser slot;
  return slot;
}

}  // namespace

ReusedJsonParser::ReusedJsonParser() {
  ThreadParser& slot = thread_parser();
  if (slot.lent) {
    own_ = std::make_unique<simdjson::ondemand::parser>();
    parser_ = own_.get();
    return;
  }
  if (!slot.parser) slot.parser = std::make_unique<simdjson::ondemand::parser>();
  slot.lent = true;
  parser_ = slot.parser.get();
}

ReusedJsonParser::~ReusedJsonParser() {
  if (own_) return;
  ThreadParser& slot = thread_parser();
  if (parser_->capacity() > kKeptJsonCapacity) slot.parser.reset();
  slot.lent = false;
}

std::size_t ReusedJsonParser::kept_capacity() {
  const ThreadParser& slot = thread_parser();
  return slot.parser ? slot.parser->capacity() : 0;
}

}  // namespace tsserve::server
