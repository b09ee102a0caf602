#pragma once
// W3C Trace Context (https://www.w3.org/TR/trace-context/): the `traceparent` a caller
// sends (an HTTP header, or gRPC metadata of the same name) ties this server's log line
// for the call to the caller's trace. It is read, never required: a malformed value is
// ignored, as the specification asks, and the call proceeds untraced.

#include <optional>
#include <string>
#include <string_view>

namespace tsserve::server {

struct TraceContext {
  std::string trace_id;   // 32 lower-case hex digits, not all zero
  std::string parent_id;  // 16 lower-case hex digits, not all zero: the caller's span
  bool sampled = false;   // trace-flags bit 0
};

// "00-<trace-id>-<parent-id>-<flags>"; a later version's value is read by the same first
// 55 characters (the fields version 00 defines), as the specification says. nullopt
// for version ff, a wrong length or separator, upper-case or other non-hex digits, and
// an all-zero trace-id or parent-id.
std::optional<TraceContext> parse_traceparent(std::string_view header);

}  // namespace tsserve::server
