#pragma once
// ForecastRequest.request_id / EncodeRequest.request_id: "at most 128 bytes of printable
// ASCII (otherwise INVALID_ARGUMENT). Empty: the server makes one up and returns it."

#include <cstddef>
#include <string>

#include "server/status/status.h"

namespace tsserve::server {

inline constexpr std::size_t kMaxRequestIdBytes = 128;

// A new id, unique within this process and very likely across processes: a random
// 64-bit process prefix and a counter, e.g. "3f9c0a7d12e4b6a5-42" (printable ASCII, well
// under kMaxRequestIdBytes). Thread-safe.
std::string generate_request_id();

// Checks `requested` (bytes 0x20..0x7e, at most kMaxRequestIdBytes) and stores it in
// *out, or a generated id when it is empty. INVALID_ARGUMENT naming the field (`field`) and
// the first offending byte otherwise. `out` may be `&requested` (resolved in place).
Status resolve_request_id(const std::string& requested, std::string* out,
                          const char* field = "request_id");

}  // namespace tsserve::server
