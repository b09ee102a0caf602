#pragma once
// A JSON number's text (RFC 8259 grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?)
// to the value a tensor holds, read once from the text in one pass over its grammar: a
// float32 is the float nearest the decimal itself, so what a client printed with the
// fewest round-trip digits comes back as the same bits. Short decimals take Clinger's
// exact fast path (in float32, or in double where rounding that double again cannot move
// it: never from a float midpoint); the rest std::from_chars rounds from the text.

#include <cstdint>
#include <string_view>

namespace tsserve::server {

enum class JsonNumberError {
  kNone,
  kNotANumber,    // not the JSON number grammar (NaN, Infinity, 01, +1, .5, 1., ...)
  kNotAnInteger,  // a fraction or an exponent where an integer is expected
  kOutOfRange,    // beyond the type (a float32 overflow, an int64 overflow, a negative unsigned)
};

// `text` may end in whitespace (a token as a streaming parser gives it).
JsonNumberError parse_json_float(std::string_view text, float* value);
JsonNumberError parse_json_double(std::string_view text, double* value);
JsonNumberError parse_json_int64(std::string_view text, std::int64_t* value);
JsonNumberError parse_json_uint64(std::string_view text, std::uint64_t* value);

// The JSON number at the start of [begin, end) as a float32, rounded as parse_json_float
// rounds it: where the number ends, or nullptr when the text there starts no number.
// *in_range is false when the number overflows float32. For scanners that find a
// number's end themselves.
const char* read_json_float_prefix(const char* begin, const char* end, float* value,
                                   bool* in_range);

// "is not a JSON number", "is not an integer", "is out of range for <type>".
const char* describe(JsonNumberError error);

}  // namespace tsserve::server
