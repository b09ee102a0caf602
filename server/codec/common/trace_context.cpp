#include "server/codec/common/trace_context.h"

namespace tsserve::server {
namespace {

bool lower_hex(std::string_view text) {
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

bool all_zero(std::string_view text) {
  return text.find_first_not_of('0') == std::string_view::npos;
}

}  // namespace

std::optional<TraceContext> parse_traceparent(std::string_view header) {
  // version(2) - trace-id(32) - parent-id(16) - flags(2)
  constexpr std::size_t kLength = 55;
  if (header.size() < kLength || header[2] != '-' || header[35] != '-' || header[52] != '-') {
    return std::nullopt;
  }
  const std::string_view version = header.substr(0, 2);
  const std::string_view trace_id = header.substr(3, 32);
  const std::string_view parent_id = header.substr(36, 16);
  const std::string_view flags = header.substr(53, 2);
  if (!lower_hex(version) || version == "ff" || !lower_hex(trace_id) || !lower_hex(parent_id) ||
      !lower_hex(flags) || all_zero(trace_id) || all_zero(parent_id)) {
    return std::nullopt;
  }
  // Version 00 has exactly these fields; a later one may append more after a '-'.
  if (header.size() > kLength && (version == "00" || header[kLength] != '-')) return std::nullopt;
  const int flag_bits = std::stoi(std::string(flags), nullptr, 16);
  return TraceContext{std::string(trace_id), std::string(parent_id), (flag_bits & 1) != 0};
}

}  // namespace tsserve::server
