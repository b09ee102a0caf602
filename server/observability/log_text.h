#pragma once
// Text from a request (a model name, a series key, a request id, an error message that
// quotes them) made safe to put in a log line. A caller controls those bytes: unescaped,
// a newline forges a log line, an ESC sequence rewrites the operator's terminal, and an
// 8 KB name repeated per request fills the disk. So every such value is logged through
// log_text(), in the text format and the JSON one alike.
//
//   - backslash as \\; \n \r \t as themselves escaped; other control bytes (0x00-0x1f,
//     0x7f) and bytes that are not valid UTF-8 as \xHH;
//   - valid UTF-8 is kept, but for the C1 controls (U+0080-U+009F), the line and paragraph
//     separators (U+2028, U+2029) and the bidirectional overrides and isolates
//     (U+202A-U+202E, U+2066-U+2069), which reorder or hide what a reader sees: \u{HHHH};
//   - cut at a whole escape or character so that the escaped text takes at most
//     `max_bytes`, then "…(N bytes)" added, N the length of the original.
//
// Thread safety: a pure function.

#include <cstddef>
#include <string>
#include <string_view>

namespace tsserve::server {

inline constexpr std::size_t kLogTextMaxBytes = 200;

std::string log_text(std::string_view text, std::size_t max_bytes = kLogTextMaxBytes);

}  // namespace tsserve::server
