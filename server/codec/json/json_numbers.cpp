#include "server/codec/json/json_numbers.h"

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
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

// A JSON number's parts, read in one pass over the grammar: the sign, its significant
// digits as an integer and the power of ten that scales them.
struct DecimalParts {
  bool negative = false;
  bool integer = true;        // neither a fraction nor an exponent
  bool exact = true;          // `digits` holds every significant digit (at most 19)
  std::uint64_t digits = 0;   // wraps past 19 digits; then `exact` is false
  std::int64_t exponent = 0;  // value = digits x 10^exponent, when exact
};

constexpr std::ptrdiff_t kMaxDigits = 19;  // 10^19 - 1 < 2^64

// The digits from `p` on, appended to `digits`; where they end. (Eight at a time by
// SWAR bit arithmetic measured no faster: a window's numbers have 4-6 digits.)
[[gnu::always_inline]] inline const char* append_digits(const char* p, const char* end,
                                                        std::uint64_t* digits) {
  std::uint64_t value = *digits;
  while (p < end && is_digit(*p)) value = value * 10 + static_cast<std::uint64_t>(*p++ - '0');
  *digits = value;
  return p;
}

// The JSON number at the start of [p, end) and its parts: where it ends, or nullptr when
// the text there does not start with one. Inlined into each reader: the parts then live
// in registers (a window's thousands of numbers go through here).
[[gnu::always_inline]] inline const char* read_json_number_prefix(const char* p,
                                                                  const char* const end,
                                                                  DecimalParts* parts) {
  std::uint64_t digits = 0;
  std::int64_t scale = 0;
  std::ptrdiff_t significant = 0;
  const bool negative = p < end && *p == '-';
  if (negative) ++p;
  if (p >= end) return nullptr;
  if (*p == '0') {
    ++p;
  } else if (is_digit(*p)) {
    const char* start = p;
    p = append_digits(p, end, &digits);
    significant = p - start;
  } else {
    return nullptr;
  }
  bool integer = true;
  if (p < end && *p == '.') {
    integer = false;
    const char* fraction = ++p;
    if (significant == 0) {
      while (p < end && *p == '0') ++p;  // leading zeros scale, they are not digits
    }
    const char* start = p;
    p = append_digits(p, end, &digits);
    if (p == fraction) return nullptr;
    significant += p - start;
    scale -= p - fraction;
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    integer = false;
    ++p;
    bool negative_exponent = false;
    if (p < end && (*p == '+' || *p == '-')) negative_exponent = *p++ == '-';
    if (p >= end || !is_digit(*p)) return nullptr;
    std::int64_t exponent = 0;
    while (p < end && is_digit(*p)) {
      // Past any float's range either way; stops the count overflowing.
      if (exponent < 100000) exponent = exponent * 10 + (*p - '0');
      ++p;
    }
    scale += negative_exponent ? -exponent : exponent;
  }
  parts->negative = negative;
  parts->integer = integer;
  parts->exact = significant <= kMaxDigits;
  parts->digits = digits;
  parts->exponent = scale;
  return p;
}

// Whether `text` is exactly one JSON number, and its parts.
bool read_json_number(std::string_view text, DecimalParts* parts) {
  const char* const end = text.data() + text.size();
  return read_json_number_prefix(text.data(), end, parts) == end;
}

// Clinger's fast path: digits <= 2^53 and |exponent| <= 22 make digits and 10^|exponent|
// exact doubles, so one multiplication or division rounds the decimal correctly.
[[gnu::always_inline]] inline bool exact_double(const DecimalParts& parts, double* value) {
  static constexpr double kPowersOfTen[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                            1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                            1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  if (!parts.exact || parts.digits > (std::uint64_t{1} << 53) || parts.exponent < -22 ||
      parts.exponent > 22) {
    return false;
  }
  double magnitude = static_cast<double>(parts.digits);
  magnitude = parts.exponent < 0 ? magnitude / kPowersOfTen[-parts.exponent]
                                 : magnitude * kPowersOfTen[parts.exponent];
  *value = parts.negative ? -magnitude : magnitude;
  return true;
}

// The float nearest the decimal, else from its correctly rounded double. Rounding twice is
// exact unless the double landed exactly halfway between two floats (the midpoints are
// doubles, and rounding to a double never crosses one): then, and for subnormals and
// overflow, the caller reads the text again.
[[gnu::always_inline]] inline bool exact_float(const DecimalParts& parts, float* value) {
  // Clinger's fast path in float32 itself, when digits <= 2^24 and |exponent| <= 10: the
  // short decimals clients print (a CSV's 3 decimals) take it.
  static constexpr float kFloatPowersOfTen[] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f,
                                                1e6f, 1e7f, 1e8f, 1e9f, 1e10f};
  if (parts.exact && parts.digits <= (std::uint64_t{1} << 24) && parts.exponent >= -10 &&
      parts.exponent <= 10) {
    float magnitude = static_cast<float>(parts.digits);
    magnitude = parts.exponent < 0 ? magnitude / kFloatPowersOfTen[-parts.exponent]
                                   : magnitude * kFloatPowersOfTen[parts.exponent];
    *value = parts.negative ? -magnitude : magnitude;
    return true;
  }
  double wide = 0;
  if (!exact_double(parts, &wide)) return false;
  if (wide == 0) {
    *value = static_cast<float>(wide);
    return true;
  }
  const double magnitude = std::fabs(wide);
  if (magnitude < std::numeric_limits<float>::min() ||
      magnitude > std::numeric_limits<float>::max()) {
    return false;
  }
  std::uint64_t bits = 0;
  std::memcpy(&bits, &wide, sizeof bits);
  // A double has 29 more fraction bits than a float; halfway is 1 then 28 zeros.
  constexpr std::uint64_t kBelowFloat = (std::uint64_t{1} << 29) - 1;
  if ((bits & kBelowFloat) == (std::uint64_t{1} << 28)) return false;
  *value = static_cast<float>(wide);
  return true;
}

bool fast_floating(const DecimalParts& parts, float* value) { return exact_float(parts, value); }
bool fast_floating(const DecimalParts& parts, double* value) { return exact_double(parts, value); }

template <typename Float>
JsonNumberError parse_floating(std::string_view text, Float* value) {
  text = trim_trailing_space(text);
  DecimalParts parts;
  if (!read_json_number(text, &parts)) return JsonNumberError::kNotANumber;
  if (fast_floating(parts, value)) return JsonNumberError::kNone;
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
  DecimalParts parts;
  if (!read_json_number(text, &parts)) return JsonNumberError::kNotANumber;
  if (!parts.integer) return JsonNumberError::kNotAnInteger;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *value);
  if (error == std::errc::result_out_of_range) return JsonNumberError::kOutOfRange;
  // from_chars refuses "-1" for an unsigned type.
  if (error != std::errc() || end != text.data() + text.size()) {
    return text.front() == '-' ? JsonNumberError::kOutOfRange : JsonNumberError::kNotANumber;
  }
  return JsonNumberError::kNone;
}

}  // namespace

const char* read_json_float_prefix(const char* begin, const char* end, float* value,
                                   bool* in_range) {
  DecimalParts parts;
  const char* number_end = read_json_number_prefix(begin, end, &parts);
  *in_range = true;
  if (number_end == nullptr || exact_float(parts, value)) return number_end;
  const std::string_view text(begin, static_cast<std::size_t>(number_end - begin));
  *in_range = parse_floating(text, value) == JsonNumberError::kNone;
  return number_end;
}

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
