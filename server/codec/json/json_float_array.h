#pragma once
// A JSON array of numbers (nested arrays of numbers included) read as float32 in one pass
// over its text: the structure, each number's grammar and its rounding together. The
// general reading walks simdjson's on-demand values element by element and reads each
// number's token again; for the thousands of numbers of a window this scan is the fast
// path (BENCHMARKS.md, "HTTP"). It accepts only what it can read whole: anything else
// (a string, null, an object, an empty array, a number out of float32's range unless
// that is asked for, nesting deeper than asked) makes it give up, and the caller reads the array
// the general way, which names the element and what is wrong with it.

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

namespace tsserve::server {

struct JsonFloatArray {
  // Set before the scan. `overflow_ok`: read on past a number that overflows float32 (it
  // may be meant for another type; `in_range` says) instead of giving up. `keep_tokens`:
  // keep each number's text in `tokens`.
  bool overflow_ok = false;
  bool keep_tokens = false;
  std::vector<float> values;  // in document order
  std::vector<std::string_view> tokens;
  bool in_range = true;   // every value is the float32 its number rounds to
  std::string_view text;  // the array as scanned, '[' to ']' (after a scan that took it)
  int scalar_depth = -1;  // how deep the numbers sit (0: in the outer array)
  // The lengths of the arrays met at each depth (0: the outer array): shortest, longest.
  std::vector<std::pair<std::size_t, std::size_t>> lengths;

  // Empty again, keeping the vectors' memory for the next array.
  void clear() {
    values.clear();
    tokens.clear();
    in_range = true;
    text = {};
    scalar_depth = -1;
    lengths.clear();
  }

  // clear(), and the vectors' memory given back when it exceeds `max_bytes`: a scan
  // reused from array to array keeps no buffer sized for one huge array.
  void clear_keeping(std::size_t max_bytes);
};

// `text` starts at the array's '[' and may run on past its ']'. Returns the bytes read up
// to and including the ']', or 0 when it gave up (then `out` holds partial work).
// `max_depth`: how many levels below the outer array may hold arrays (0: flat only).
std::size_t scan_json_float_array(std::string_view text, int max_depth, JsonFloatArray* out);

}  // namespace tsserve::server
