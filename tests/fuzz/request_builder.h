#pragma once
// Pieces of requests built from fuzzer bytes (FuzzInput), shared by the request fuzzers:
// dimensions that are usually the model's and sometimes hostile, data that usually fills
// its shape, names, ids. Usually valid, so that the deeper rules are reached; hostile
// often enough that every refusal is too.

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "fuzz_input.h"

namespace tsserve::fuzz {

// `typical` most of the time; otherwise a neighbour, zero, a small number or a value that
// breaks arithmetic (negative, 2^32, INT64_MAX, INT64_MIN).
inline int64_t dimension(FuzzInput& in, int64_t typical) {
  const unsigned choice = in.byte() % 16;
  const int64_t others[] = {0,
                            -1,
                            typical - 1,
                            typical + 1,
                            int64_t{1} << 32,
                            int64_t{1} << 62,
                            std::numeric_limits<int64_t>::max(),
                            std::numeric_limits<int64_t>::min(),
                            1 + in.byte() % 16};
  return choice < std::size(others) ? others[choice] : typical;
}

// The number of floats a tensor of `shape` holds when that is small enough to send, else
// a small arbitrary count; sometimes off by a little, so that the count rule is hit.
inline int64_t data_count(FuzzInput& in, const std::vector<int64_t>& shape) {
  constexpr int64_t kMaxFloats = int64_t{1} << 20;
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0 || d > kMaxFloats || count * d > kMaxFloats) {
      count = in.byte();
      break;
    }
    count *= d;
  }
  if (in.byte() % 8 == 0) count += static_cast<int8_t>(in.byte());
  return count < 0 ? 0 : count;
}

// `count` floats: a ramp from a base (ordinary, huge, tiny, subnormal) with a step that
// may overflow, then a few values at chosen positions with arbitrary bits (NaN, infinity).
inline std::vector<float> series_values(FuzzInput& in, int64_t count) {
  const float base = in.pick<float>({0.0f, 1.5f, -20.0f, 17.0f, 1e30f, -3e38f, 1e-42f, 3.4e38f});
  const float step = in.pick<float>({0.25f, 0.0f, -1.0f, 0.125f, 1e37f, 1e-3f});
  std::vector<float> values(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < values.size(); ++i) {
    values[i] = base + step * static_cast<float>(i % 97);
  }
  for (int k = in.byte() % 4; k > 0 && count > 0; --k) {
    values[in.below(static_cast<uint64_t>(count))] = in.f32();
  }
  return values;
}

// Little-endian float32 bytes.
inline std::string raw_bytes(const std::vector<float>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * 4);
}

// The bundled model's scaler columns, then names that are not columns.
inline std::string variable_name(FuzzInput& in, int64_t position) {
  static const char* const kColumns[] = {"HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"};
  switch (in.byte() % 8) {
    case 0:
      return kColumns[in.byte() % 7];
    case 1:
      return "x" + std::to_string(position);
    case 2:
      return "";
    case 3:
      return in.text(12);
    default:
      return kColumns[position % 7];  // column order, repeating past 7
  }
}

// A request id: none (the server makes one), ordinary, the longest allowed, one too long,
// or arbitrary bytes.
inline std::string request_id(FuzzInput& in) {
  switch (in.byte() % 6) {
    case 0:
      return "req-7";
    case 1:
      return std::string(128, 'a');
    case 2:
      return std::string(129, 'a');
    case 3:
      return in.text(40);
    default:
      return "";
  }
}

// A count for a repeated field that should hold `typical` entries (any dimension(), so
// clamped to 0..max before any arithmetic).
inline int64_t repeat_count(FuzzInput& in, int64_t typical, int64_t max) {
  typical = std::clamp<int64_t>(typical, 0, max);
  const int64_t count = in.pick<int64_t>({0, typical, typical, typical - 1, typical + 1, 1});
  return std::clamp<int64_t>(count, 0, max);
}

}  // namespace tsserve::fuzz
