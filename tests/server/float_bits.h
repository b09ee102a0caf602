#pragma once
// A float32's bit pattern, for tests that compare values bit for bit (0.0 and -0.0 differ,
// as do NaN payloads).

#include <cstdint>
#include <cstring>

namespace tsserve::server::testing {

inline std::uint32_t float_bits(float value) {
  std::uint32_t out;
  std::memcpy(&out, &value, sizeof out);
  return out;
}

}  // namespace tsserve::server::testing
