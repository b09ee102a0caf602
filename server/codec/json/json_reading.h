#pragma once
// Reading a request body with simdjson's On Demand API, the way every JSON door does:
// errors are INVALID_ARGUMENT naming the field by its path ("inputs[0].shape"), a wrong
// type is said as the expectation, anything else as malformed text; a field given twice,
// an unknown field, and text after the object are refused.
//
// The body is read in place: open_json_object() grows its capacity by simdjson's padding,
// so the body must outlive the document.

#include <simdjson.h>

#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "server/codec/json/json_float_array.h"
#include "server/status/status.h"

namespace tsserve::server {

namespace json_od = simdjson::ondemand;

// "<where>: malformed JSON (<simdjson's reason>)".
Status json_malformed(simdjson::error_code error, const std::string& where);

// A wrong JSON type as "<where>: expected <expectation>"; any other error as malformed.
Status json_expected(simdjson::error_code error, const std::string& where, const char* expectation);

// Paths: "a[3]", "a.b".
std::string json_element(const std::string& path, std::size_t index);
std::string json_member(const std::string& path, std::string_view key);

// "<path>.<key>: given twice; each field once" ("<key>: ..." at the top, path empty).
Status json_duplicate(const std::string& path, std::string_view key);

// The field names of one object met so far (the columns of a series, say), so that a
// repeat is found at any distance at a constant cost per name: a body of n columns costs
// O(n), not the O(n^2) of comparing each name with every earlier one. The views point
// into the parser's buffer (for_each_json_field's keys), valid while the document is.
class JsonNames {
 public:
  // json_duplicate(path, name) when `name` was met before; remembers it otherwise.
  Status add(const std::string& path, std::string_view name);

 private:
  std::unordered_set<std::string_view> seen_;
};

// Starts reading `body` as one JSON object (`expectation` names it in the error).
// `parser` must outlive `document`: a ReusedJsonParser's (reused_json_parser.h).
Status open_json_object(std::string& body, json_od::parser& parser, json_od::document* document,
                        json_od::object* root, const char* expectation);

// OK when nothing but whitespace follows the object just read.
Status json_ends_after_object(json_od::document& document);

// Calls visit(key, value) for each field of `object`, in order; `path` names the object
// ("" for the body's top level).
template <typename Visit>
Status for_each_json_field(json_od::object& object, const std::string& path, Visit visit) {
  const auto malformed = [&path](simdjson::error_code error) {
    return json_malformed(error, path.empty() ? "the body" : path);
  };
  for (auto field_result : object) {
    json_od::field field;
    if (auto error = std::move(field_result).get(field)) return malformed(error);
    std::string_view key;
    if (auto error = field.unescaped_key().get(key)) return malformed(error);
    json_od::value value = field.value();
    TSSERVE_RETURN_IF_ERROR(visit(key, value));
  }
  return {};
}

// An array element's path ("series.OT[3]"), written out only when an error names it: a
// column of thousands of numbers must not build a string per number.
struct JsonElementPath {
  const std::string& array;
  std::size_t index;
  std::string text() const { return json_element(array, index); }
  operator std::string() const { return text(); }  // NOLINT: a path wherever one is taken
};

// Calls parse(element, JsonElementPath) for each element of the array `value` holds.
template <typename Parse>
Status for_each_json_element(json_od::value& value, const std::string& path,
                             const char* expectation, Parse parse) {
  json_od::array array;
  if (auto error = value.get_array().get(array)) return json_expected(error, path, expectation);
  std::size_t index = 0;
  for (auto item : array) {
    json_od::value element_value;
    if (auto error = std::move(item).get(element_value)) return json_malformed(error, path);
    TSSERVE_RETURN_IF_ERROR(parse(element_value, JsonElementPath{path, index}));
    ++index;
  }
  return {};
}

// Marks a field seen; json_duplicate when it was already.
inline Status first_time(bool* seen, const std::string& path, std::string_view key) {
  if (*seen) return json_duplicate(path, key);
  *seen = true;
  return {};
}

// Reads the array `value` holds with scan_json_float_array (json_float_array.h), the fast
// path for arrays of numbers; `body` is the text the document reads. Sets *scanned: true,
// the array consumed and `out` filled; false, `value` untouched and `out` empty, for the
// general reading, which names what the scan could not take. `path` names the array.
Status scan_json_floats(json_od::value& value, std::string_view body, const std::string& path,
                        int max_depth, JsonFloatArray* out, bool* scanned);

Status read_json_string(json_od::value& value, const std::string& path, std::string* out);
Status read_json_bool(json_od::value& value, const std::string& path, bool* out);

}  // namespace tsserve::server
