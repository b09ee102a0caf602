#pragma once
// Writes JSON text into one string, fast enough for a forecast's numbers (std::to_chars:
// a float32 is written in the fewest digits that parse back to the same bits, so a
// forecast read from JSON is bitwise the one computed).
//
// The caller nests the calls correctly (object keys before their values); the writer
// places commas and colons. Strings are escaped as RFC 8259 asks (append_json_escaped). A
// non-finite number, which JSON cannot hold, is written as null (the codecs refuse such answers
// before writing).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tsserve::server {

class JsonWriter {
 public:
  JsonWriter() { out_.reserve(256); }

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);

  JsonWriter& string(std::string_view text);
  JsonWriter& number(float value);
  JsonWriter& number(double value);
  JsonWriter& integer(std::int64_t value);
  JsonWriter& unsigned_integer(std::uint64_t value);
  JsonWriter& boolean(bool value);
  JsonWriter& null();

  // Floats of `values` as one array.
  JsonWriter& numbers(const float* values, std::size_t count);
  // One value that is already JSON text (another writer's whole output), as it is.
  JsonWriter& raw_value(std::string_view json);

  // The text so far; the writer is left empty.
  std::string take() { return std::move(out_); }
  const std::string& text() const { return out_; }

 private:
  void before_value();
  JsonWriter& open(char bracket);
  JsonWriter& close(char bracket);

  std::string out_;
  std::vector<bool> has_item_;  // per open object or array: something written already
  bool after_key_ = false;
};

// `text` as the inside of a JSON string (no surrounding quotes), appended to `out`: quotes,
// backslashes and control characters (and DEL) escaped, bytes that are not UTF-8 replaced
// by U+FFFD, so that the result is always valid JSON.
void append_json_escaped(std::string_view text, std::string& out);

// `text` as a JSON string literal, quotes included.
std::string json_quoted(std::string_view text);

// {"error": "<message>"}: the error body of every HTTP answer that is not a success.
std::string json_error_body(std::string_view message);

}  // namespace tsserve::server
