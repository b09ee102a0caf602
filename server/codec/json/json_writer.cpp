#include "server/codec/json/json_writer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

namespace tsserve::server {
namespace {

// Length of the well-formed UTF-8 sequence (RFC 3629: shortest form, no surrogates,
// at most U+10FFFF) starting at text[i], or 0 when text[i] does not start one.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  unsigned char low = 0x80;  // the allowed range of the second byte
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // no overlong forms
    if (lead == 0xED) high = 0x9F;  // no UTF-16 surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // no overlong forms
    if (lead == 0xF4) high = 0x8F;  // at most U+10FFFF
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return length;
}

}  // namespace

void append_json_escaped(std::string_view text, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const std::size_t length = utf8_sequence_length(text, i);
      if (length == 0) {
        out += "\xEF\xBF\xBD";  // U+FFFD for a byte that is not UTF-8
        ++i;
      } else {
        out.append(text.substr(i, length));
        i += length;
      }
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
}

namespace {

void append_quoted(std::string& out, std::string_view text) {
  out += '"';
  append_json_escaped(text, out);
  out += '"';
}

template <typename T>
void append_number(std::string& out, T value) {
  char digits[32];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  out.append(digits, end);
}

// A float or double, or null when JSON cannot hold it.
template <typename T>
void append_finite(std::string& out, T value) {
  if (std::isfinite(value)) {
    append_number(out, value);
  } else {
    out += "null";
  }
}

}  // namespace

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_item_.empty()) {
    if (has_item_.back()) out_ += ',';
    has_item_.back() = true;
  }
}

JsonWriter& JsonWriter::open(char bracket) {
  before_value();
  out_ += bracket;
  has_item_.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::close(char bracket) {
  out_ += bracket;
  has_item_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::begin_object() { return open('{'); }
JsonWriter& JsonWriter::end_object() { return close('}'); }
JsonWriter& JsonWriter::begin_array() { return open('['); }
JsonWriter& JsonWriter::end_array() { return close(']'); }

JsonWriter& JsonWriter::key(std::string_view name) {
  before_value();
  append_quoted(out_, name);
  out_ += ':';
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::string(std::string_view text) {
  before_value();
  append_quoted(out_, text);
  return *this;
}

JsonWriter& JsonWriter::raw_value(std::string_view json) {
  before_value();
  out_ += json;
  return *this;
}

JsonWriter& JsonWriter::number(float value) {
  before_value();
  append_finite(out_, value);
  return *this;
}

JsonWriter& JsonWriter::number(double value) {
  before_value();
  append_finite(out_, value);
  return *this;
}

JsonWriter& JsonWriter::integer(std::int64_t value) {
  before_value();
  append_number(out_, value);
  return *this;
}

JsonWriter& JsonWriter::unsigned_integer(std::uint64_t value) {
  before_value();
  append_number(out_, value);
  return *this;
}

JsonWriter& JsonWriter::boolean(bool value) {
  before_value();
  out_ += value ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::numbers(const float* values, std::size_t count) {
  begin_array();
  // Written in place, to_chars straight into the text: appending each number and comma
  // was a library call and a copy per number, a third of an answer's writing.
  // A float32 takes at most 15 characters ("-1.17549435e-38"), and a comma.
  constexpr std::size_t kMostPerNumber = 16;
  const std::size_t start = out_.size();
  // Room for the longest floats, growing geometrically: an exact reserve per call would
  // copy the whole text again for each of many arrays (an answer's columns).
  const std::size_t need = start + count * kMostPerNumber;
  if (out_.capacity() < need) out_.reserve(std::max(need, 2 * out_.capacity()));
  out_.resize(need);
  char* p = out_.data() + start;
  for (std::size_t i = 0; i < count; ++i) {
    if (i != 0) *p++ = ',';
    if (std::isfinite(values[i])) {
      p = std::to_chars(p, p + kMostPerNumber - 1, values[i]).ptr;
    } else {
      std::memcpy(p, "null", 4);
      p += 4;
    }
  }
  out_.resize(static_cast<std::size_t>(p - out_.data()));
  if (count != 0) has_item_.back() = true;
  return end_array();
}

std::string json_quoted(std::string_view text) {
  std::string out;
  append_quoted(out, text);
  return out;
}

std::string json_error_body(std::string_view message) {
  std::string out = "{\"error\":";
  append_quoted(out, message);
  out += '}';
  return out;
}

}  // namespace tsserve::server
