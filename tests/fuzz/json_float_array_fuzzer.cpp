// Fuzz target: the one-pass scan of a JSON array of numbers (codec/json/json_float_array.h),
// the fast path both JSON doors read a window's numbers through.
//
// Input: text that may start with an array, nested at most 3 levels.
// Invariants: when the scan accepts a prefix, simdjson's own parser (its DOM, an
// independent reader) takes that prefix as JSON holding the same numbers in the same
// order, nested as deep, each the float32 parse_json_float reads from its text; the
// scan keeps one token per value. When it refuses, it says so by reading nothing.

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_target.h"
#include "server/codec/json/json_float_array.h"
#include "server/codec/json/json_numbers.h"

namespace tsserve::fuzz {
namespace {

// The numbers of `element` in document order, and how deep the deepest sits.
void collect(simdjson::dom::element element, int depth, std::vector<std::string>* kinds,
             std::vector<double>* numbers, int* deepest) {
  simdjson::dom::array array;
  if (element.get_array().get(array) == simdjson::SUCCESS) {
    for (simdjson::dom::element item : array) collect(item, depth + 1, kinds, numbers, deepest);
    return;
  }
  *deepest = std::max(*deepest, depth - 1);
  double number = 0;
  const bool is_number = element.get_double().get(number) == simdjson::SUCCESS;
  kinds->push_back(is_number ? "number" : "other");
  numbers->push_back(number);
}

std::uint32_t bits_of(float value) {
  std::uint32_t out;
  std::memcpy(&out, &value, sizeof out);
  return out;
}

}  // namespace
}  // namespace tsserve::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tsserve;
  const std::string text(reinterpret_cast<const char*>(data), size);
  server::JsonFloatArray scan;
  scan.overflow_ok = true;
  scan.keep_tokens = true;
  const std::size_t length = server::scan_json_float_array(text, 3, &scan);
  if (length == 0) return 0;
  FUZZ_CHECK(length <= text.size() && text[length - 1] == ']', "read past the array's end");
  FUZZ_CHECK(scan.text == std::string_view(text).substr(0, length), "text is not what was read");
  FUZZ_CHECK(scan.tokens.size() == scan.values.size(), "a value without its token");
  for (std::size_t i = 0; i < scan.values.size(); ++i) {
    float expected = 0;
    const auto error = server::parse_json_float(scan.tokens[i], &expected);
    FUZZ_CHECK(error == server::JsonNumberError::kNone ||
                   (error == server::JsonNumberError::kOutOfRange && !scan.in_range),
               "a token parse_json_float refuses: " + std::string(scan.tokens[i]));
    if (error == server::JsonNumberError::kNone) {
      FUZZ_CHECK(fuzz::bits_of(scan.values[i]) == fuzz::bits_of(expected),
                 "a value other than parse_json_float's: " + std::string(scan.tokens[i]));
    }
  }
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  const auto error = parser.parse(text.data(), length).get(root);
  // simdjson's DOM refuses integers past 64 bits and numbers past a double's range, which
  // JSON allows and the scan reads (a float32 rounds them or overflows).
  if (error == simdjson::NUMBER_ERROR) return 0;
  FUZZ_CHECK(!error, "simdjson refuses the prefix the scan took: " + text.substr(0, length));
  std::vector<std::string> kinds;
  std::vector<double> numbers;
  int deepest = -1;
  fuzz::collect(root, 0, &kinds, &numbers, &deepest);
  FUZZ_CHECK(kinds.size() == scan.values.size(), "simdjson counts other elements");
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    FUZZ_CHECK(kinds[i] == "number", "the scan took a non-number");
    if (scan.in_range) {
      // Through a double, simdjson's value rounds to the same float32 except on ties.
      const float narrowed = static_cast<float>(numbers[i]);
      FUZZ_CHECK(
          std::fabs(narrowed - scan.values[i]) <= std::fabs(scan.values[i]) * 1.2e-7f + 1e-38f,
          "simdjson reads another value: " + std::string(scan.tokens[i]));
    }
  }
  FUZZ_CHECK(deepest == scan.scalar_depth, "simdjson nests the numbers otherwise");
  return 0;
}
