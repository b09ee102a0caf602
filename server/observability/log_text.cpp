#include "server/observability/log_text.h"

#include <cstdint>

namespace tsserve::server {
namespace {

constexpr char kHex[] = "0123456789abcdef";

std::string byte_escape(unsigned char byte) {
  return std::string("\\x") + kHex[byte >> 4] + kHex[byte & 0xf];
}

// The length of the valid UTF-8 sequence at text[i] and its code point; 0 when the bytes
// there are not one (a stray continuation, overlong, a surrogate, past U+10FFFF, cut off).
std::size_t utf8_sequence(std::string_view text, std::size_t i, uint32_t* code_point) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  uint32_t value = 0;
  uint32_t least = 0;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
    value = lead & 0x1f;
    least = 0x80;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    value = lead & 0x0f;
    least = 0x800;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    value = lead & 0x07;
    least = 0x10000;
  } else {
    return 0;
  }
  if (text.size() - i < length) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(k) & 0xc0) != 0x80) return 0;
    value = (value << 6) | (byte(k) & 0x3f);
  }
  if (value < least || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff)) return 0;
  *code_point = value;
  return length;
}

// Code points that are printable bytes yet change what a reader of the log sees.
bool hides_or_reorders(uint32_t code_point) {
  return (code_point >= 0x80 && code_point <= 0x9f) || code_point == 0x2028 ||
         code_point == 0x2029 || (code_point >= 0x202a && code_point <= 0x202e) ||
         (code_point >= 0x2066 && code_point <= 0x2069);
}

std::string code_point_escape(uint32_t code_point) {
  std::string digits;
  for (int shift = 12; shift >= 0; shift -= 4) digits += kHex[(code_point >> shift) & 0xf];
  return "\\u{" + digits + "}";
}

// The escaped form of the unit (byte or character) at text[i]; *consumed its length.
std::string escaped_unit(std::string_view text, std::size_t i, std::size_t* consumed) {
  const auto byte = static_cast<unsigned char>(text[i]);
  *consumed = 1;
  switch (byte) {
    case '\\':
      return "\\\\";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    default:
      break;
  }
  if (byte < 0x20 || byte == 0x7f) return byte_escape(byte);
  if (byte < 0x80) return std::string(1, static_cast<char>(byte));
  uint32_t code_point = 0;
  const std::size_t length = utf8_sequence(text, i, &code_point);
  if (length == 0) return byte_escape(byte);
  *consumed = length;
  if (hides_or_reorders(code_point)) return code_point_escape(code_point);
  return std::string(text.substr(i, length));
}

}  // namespace

std::string log_text(std::string_view text, std::size_t max_bytes) {
  std::string out;
  out.reserve(text.size() < max_bytes ? text.size() : max_bytes);
  for (std::size_t i = 0; i < text.size();) {
    std::size_t consumed = 0;
    const std::string unit = escaped_unit(text, i, &consumed);
    if (out.size() + unit.size() > max_bytes) {
      return out + "\u2026(" + std::to_string(text.size()) + " bytes)";
    }
    out += unit;
    i += consumed;
  }
  return out;
}

}  // namespace tsserve::server
