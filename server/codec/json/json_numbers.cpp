#include "server/codec/json/json_numbers.h"

#include <charconv>
#include <cmath>
#include <system_error>

namespace tsserve::server {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string_view trim_trailing_space(std::string_view text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\n' ||
                           text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

// Whether `text` is exactly one JSON number; `integer` says it has neither a fraction nor
// an exponent.
bool is_json_number(std::string_view text, bool* integer) {
  std::size_t i = 0;
  const std::size_t n = text.size();
  if (i < n && text[i] == '-') ++i;
  if (i >= n) return false;
  if (text[i] == '0') {
    ++i;
  } else if (is_digit(text[i])) {
    while (i < n && is_digit(text[i])) ++i;
  } else {
    return false;
  }
  *integer = true;
  if (i < n && text[i] == '.') {
    *integer = false;
    ++i;
    if (i >= n || !is_digit(text[i])) return false;
    while (i < n && is_digit(text[i])) ++i;
  }
  if (i < n && (text[i] == 'e' || text[i] == 'E')) {
    *integer = false;
    ++i;
    if (i < n && (text[i] == '+' || text[i] == '-')) ++i;
    if (i >= n || !is_digit(text[i])) return false;
    while (i < n && is_digit(text[i])) ++i;
  }
  return i == n;
}

template <typename Float>
JsonNumberError parse_floating(std::string_view text, Float* value) {
  text = trim_trailing_space(text);
  bool integer = false;
  if (!is_json_number(text, &integer)) return JsonNumberError::kNotANumber;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *value);
  if (error == std::errc::result_out_of_range) {
    // Too small for the type is not an error: it rounds to zero, as the type's arithmetic
    // would. Too large is.
    long double wide = 0;
    const auto parsed = std::from_chars(text.data(), text.data() + text.size(), wide);
    if (parsed.ec == std::errc() && std::fabs(wide) < 1) {
      *value = text.front() == '-' ? -Float(0) : Float(0);
      return JsonNumberError::kNone;
    }
    return JsonNumberError::kOutOfRange;
  }
  if (error == std::errc() && !std::isfinite(*value)) return JsonNumberError::kOutOfRange;
  if (error != std::errc() || end != text.data() + text.size()) return JsonNumberError::kNotANumber;
  return JsonNumberError::kNone;
}

template <typename Int>
JsonNumberError parse_integer(std::string_view text, Int* value) {
  text = trim_trailing_space(text);
  bool integer = false;
  if (!is_json_number(text, &integer)) return JsonNumberError::kNotANumber;
  if (!integer) return JsonNumberError::kNotAnInteger;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *value);
  if (error == std::errc::result_out_of_range) return JsonNumberError::kOutOfRange;
  // from_chars refuses "-1" for an unsigned type.
  if (error != std::errc() || end != text.data() + text.size()) {
    return text.front() == '-' ? JsonNumberError::kOutOfRange : JsonNumberError::kNotANumber;
  }
  return JsonNumberError::kNone;
}

}  // namespace

JsonNumberError parse_json_float(std::string_view text, float* value) {
  return parse_floating(text, value);
}
JsonNumberError parse_json_double(std::string_view text, double* value) {
  return parse_floating(text, value);
}
JsonNumberError parse_json_int64(std::string_view text, std::int64_t* value) {
  return parse_integer(text, value);
}
JsonNumberError parse_json_uint64(std::string_view text, std::uint64_t* value) {
  return parse_integer(text, value);
}

const char* describe(JsonNumberError error) {
  switch (error) {
    case JsonNumberError::kNone:
      return "is a number";
    case JsonNumberError::kNotANumber:
      return "is not a JSON number";
    case JsonNumberError::kNotAnInteger:
      return "is not an integer";
    case JsonNumberError::kOutOfRange:
      return "is out of range";
  }
  return "is not a number";
}

}  // namespace tsserve::server
