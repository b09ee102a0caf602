#pragma once
// The fuzzer's bytes read as a stream of choices, for targets that build their input
// field by field instead of parsing it. Every read succeeds: past the end it yields
// zeros (and empty strings), so any byte string is a valid input and a mutation that
// cuts it short still makes a well-formed, simpler request.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>

namespace tsserve::fuzz {

class FuzzInput {
 public:
  FuzzInput(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  size_t remaining() const { return size_ - position_; }

  uint8_t byte() { return position_ < size_ ? data_[position_++] : 0; }

  bool coin() { return (byte() & 1) != 0; }

  // Little-endian, zero-filled past the end.
  uint64_t bits(int width_bytes) {
    uint64_t value = 0;
    for (int i = 0; i < width_bytes; ++i) value |= uint64_t{byte()} << (8 * i);
    return value;
  }

  // A value in [0, bound), bound > 0.
  uint64_t below(uint64_t bound) { return bits(bound <= 256 ? 1 : bound <= 65536 ? 2 : 8) % bound; }

  // One of `choices`, by one byte.
  template <typename T>
  T pick(std::initializer_list<T> choices) {
    return *(choices.begin() + byte() % choices.size());
  }

  // The raw bits of a float: every value, NaN and infinities included, is reachable.
  float f32() {
    const auto raw = static_cast<uint32_t>(bits(4));
    float value;
    std::memcpy(&value, &raw, sizeof value);
    return value;
  }

  // Up to `max_length` bytes, the length given by one byte.
  std::string text(size_t max_length) {
    size_t length = byte();
    if (length > max_length) length = max_length;
    if (length > remaining()) length = remaining();
    std::string out(reinterpret_cast<const char*>(data_ + position_), length);
    position_ += length;
    return out;
  }

  // Everything not read yet.
  std::string rest() {
    std::string out(reinterpret_cast<const char*>(data_ + position_), remaining());
    position_ = size_;
    return out;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t position_ = 0;
};

// The request a request target's bytes stand for. Bit 0 of the first byte says how the
// rest is read: clear, the protobuf wire format as it is; set, choices for `build`, which
// reaches well-formed requests far sooner. False when wire bytes do not parse.
// REQUIRES: size >= 1.
template <typename Request, typename Build>
bool request_from_bytes(const uint8_t* data, size_t size, Build build, Request& request) {
  if ((data[0] & 1) == 0) return request.ParseFromArray(data + 1, static_cast<int>(size - 1));
  FuzzInput in(data + 1, size - 1);
  request = build(in);
  return true;
}

}  // namespace tsserve::fuzz
