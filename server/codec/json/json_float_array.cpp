#include "server/codec/json/json_float_array.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "server/codec/json/json_numbers.h"

namespace tsserve::server {
namespace {

const char* skip_space(const char* p, const char* end) {
  while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) ++p;
  return p;
}

// The array at `p` (its '['), `depth` levels down: where it ends, or nullptr.
const char* scan_array(const char* p, const char* end, int depth, int max_depth,
                       JsonFloatArray* out) {
  p = skip_space(p + 1, end);
  if (p >= end || *p == ']') return nullptr;  // empty: the general reading says what it means
  std::size_t length = 0;
  for (;;) {
    if (*p == '[') {
      if (depth == max_depth) return nullptr;
      p = scan_array(p, end, depth + 1, max_depth, out);
    } else {
      if (out->scalar_depth >= 0 && out->scalar_depth != depth) return nullptr;
      out->scalar_depth = depth;
      float value = 0;
      bool in_range = true;
      const char* start = p;
      p = read_json_float_prefix(p, end, &value, &in_range);
      if (p != nullptr && !in_range && !out->overflow_ok) return nullptr;
      if (p != nullptr) {
        out->values.push_back(value);
        out->in_range = out->in_range && in_range;
        if (out->keep_tokens) out->tokens.emplace_back(start, static_cast<std::size_t>(p - start));
      }
    }
    if (p == nullptr) return nullptr;
    ++length;
    p = skip_space(p, end);
    if (p >= end) return nullptr;
    if (*p == ']') break;
    if (*p != ',') return nullptr;
    p = skip_space(p + 1, end);
    if (p >= end) return nullptr;
  }
  const auto level = static_cast<std::size_t>(depth);
  if (out->lengths.size() <= level) {
    // Levels met for the first time start empty: shortest above longest.
    out->lengths.resize(level + 1, {std::numeric_limits<std::size_t>::max(), 0});
  }
  auto& [shortest, longest] = out->lengths[level];
  shortest = std::min(shortest, length);
  longest = std::max(longest, length);
  return p + 1;
}

}  // namespace

void JsonFloatArray::clear_keeping(std::size_t max_bytes) {
  const std::size_t held = values.capacity() * sizeof(float) +
                           tokens.capacity() * sizeof(std::string_view) +
                           lengths.capacity() * sizeof(lengths.front());
  if (held <= max_bytes) {
    clear();
    return;
  }
  JsonFloatArray empty;
  empty.overflow_ok = overflow_ok;
  empty.keep_tokens = keep_tokens;
  *this = std::move(empty);
}

std::size_t scan_json_float_array(std::string_view text, int max_depth, JsonFloatArray* out) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (begin == end || *begin != '[') return 0;
  const char* after = scan_array(begin, end, 0, max_depth, out);
  if (after == nullptr) return 0;
  out->text = std::string_view(begin, static_cast<std::size_t>(after - begin));
  return out->text.size();
}

}  // namespace tsserve::server
