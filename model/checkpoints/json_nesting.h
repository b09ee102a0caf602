#pragma once
// How deep JSON text nests arrays and objects, found without parsing it: one pass over the
// bytes, no recursion. A reader checks this before it parses text from a file, because a
// parsed value is walked recursively later (dump() in an error message, copies, the
// destructor in some versions): text nested 100,000 deep would overflow the stack there,
// and a bad checkpoint must be an error, never a crash.

#include <cstddef>
#include <string_view>

namespace tsserve::model::detail {

// The nesting of safetensors headers: a real one is 3 deep ({name: {"shape": [..]}}) and
// "__metadata__" is 2; 64 leaves room for any writer's extras.
inline constexpr size_t kMaxJsonNesting = 64;

// True when `text` opens more than `max_depth` arrays and objects inside one another
// (counting brackets outside strings, escapes honoured). Stops at the first bracket past
// the limit; malformed text is left for the parser to report.
bool json_nests_deeper_than(std::string_view text, size_t max_depth);

}  // namespace tsserve::model::detail
