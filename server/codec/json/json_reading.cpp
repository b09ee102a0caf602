#include "server/codec/json/json_reading.h"

namespace tsserve::server {

Status json_malformed(simdjson::error_code error, const std::string& where) {
  return invalid_argument(where + ": malformed JSON (" + simdjson::error_message(error) + ")");
}

Status json_expected(simdjson::error_code error, const std::string& where,
                     const char* expectation) {
  if (error == simdjson::INCORRECT_TYPE) {
    return invalid_argument(where + ": expected " + expectation);
  }
  return json_malformed(error, where);
}

std::string json_element(const std::string& path, std::size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

std::string json_member(const std::string& path, std::string_view key) {
  if (path.empty()) return std::string(key);
  return path + "." + std::string(key);
}

Status json_duplicate(const std::string& path, std::string_view key) {
  return invalid_argument(json_member(path, key) + ": given twice; each field once");
}

Status JsonNames::add(const std::string& path, std::string_view name) {
  if (!seen_.insert(name).second) return json_duplicate(path, name);
  return {};
}

Status open_json_object(std::string& body, json_od::parser& parser, json_od::document* document,
                        json_od::object* root, const char* expectation) {
  const std::size_t length = body.size();
  body.reserve(length + simdjson::SIMDJSON_PADDING);
  const simdjson::padded_string_view text(body.data(), length, body.capacity());
  if (auto error = parser.iterate(text).get(*document)) return json_malformed(error, "the body");
  if (auto error = document->get_object().get(*root)) {
    // simdjson types a value by its first character: one that starts no JSON value is
    // text that is not JSON, not a value of the wrong type.
    const std::size_t first = body.find_first_not_of(" \t\r\n");
    const bool starts_value =
        first < length &&
        std::string_view("{[\"-0123456789tfn").find(body[first]) != std::string_view::npos;
    if (!starts_value) error = simdjson::TAPE_ERROR;
    return json_expected(error, "the body", expectation);
  }
  return {};
}

Status json_ends_after_object(json_od::document& document) {
  // Past the object, nothing is left to point at: anything else follows it.
  if (document.current_location().error() != simdjson::OUT_OF_BOUNDS) {
    return invalid_argument("the body: text after the JSON object; send one object");
  }
  return {};
}

Status scan_json_floats(json_od::value& value, std::string_view body, const std::string& path,
                        int max_depth, JsonFloatArray* out, bool* scanned) {
  *scanned = false;
  const std::string_view token = value.raw_json_token();  // reads nothing
  if (token.empty() || token.front() != '[' || token.data() < body.data() ||
      token.data() >= body.data() + body.size()) {
    return {};
  }
  const auto offset = static_cast<std::size_t>(token.data() - body.data());
  const std::size_t length = scan_json_float_array(body.substr(offset), max_depth, out);
  if (length == 0) {
    out->clear();
    return {};
  }
  // simdjson skips the array by its structural index; it must end where the scan did.
  json_od::array array;
  std::string_view text;
  if (auto error = value.get_array().get(array)) return json_malformed(error, path);
  if (auto error = array.raw_json().get(text)) return json_malformed(error, path);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\r' ||
                           text.back() == '\t')) {
    text.remove_suffix(1);
  }
  if (text.size() != length) {
    return {StatusCode::kInternal, path + ": the array scan read " + std::to_string(length) +
                                       " bytes where simdjson read " + std::to_string(text.size())};
  }
  *scanned = true;
  return {};
}

Status read_json_string(json_od::value& value, const std::string& path, std::string* out) {
  std::string_view text;
  if (auto error = value.get_string().get(text)) return json_expected(error, path, "a string");
  out->assign(text);
  return {};
}

Status read_json_bool(json_od::value& value, const std::string& path, bool* out) {
  if (auto error = value.get_bool().get(*out)) return json_expected(error, path, "true or false");
  return {};
}

}  // namespace tsserve::server
