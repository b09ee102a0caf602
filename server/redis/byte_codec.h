#pragma once
// The byte forms the shared store writes into Redis (forecast_layout.h, window_layout.h):
// integers little-endian, strings a u32 length then the bytes, floats and doubles their
// IEEE-754 bits. The reader checks every length against what remains, so a corrupt value
// is a failed read, never a crash or an overread.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace tsserve::server::bytes {

template <typename T>
void put(std::string* out, T value) {
  char raw[sizeof(T)];
  std::memcpy(raw, &value, sizeof(T));  // little-endian hosts only (x86-64, aarch64)
  out->append(raw, sizeof(T));
}

inline void put_string(std::string* out, const std::string& text) {
  put<uint32_t>(out, static_cast<uint32_t>(text.size()));
  out->append(text);
}

class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}

  template <typename T>
  bool get(T* value) {
    if (bytes_.size() - at_ < sizeof(T)) return false;
    std::memcpy(value, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return true;
  }
  bool get_string(std::string* text) {
    uint32_t size = 0;
    if (!get(&size) || bytes_.size() - at_ < size) return false;
    text->assign(bytes_.data() + at_, size);
    at_ += size;
    return true;
  }
  template <typename T>
  bool get_array(std::size_t count, std::vector<T>* values) {
    if ((bytes_.size() - at_) / sizeof(T) < count) return false;
    values->resize(count);
    std::memcpy(values->data(), bytes_.data() + at_, count * sizeof(T));
    at_ += count * sizeof(T);
    return true;
  }
  // count floats into `out`, which has room for them.
  bool get_into(std::size_t count, float* out) {
    if ((bytes_.size() - at_) / sizeof(float) < count) return false;
    std::memcpy(out, bytes_.data() + at_, count * sizeof(float));
    at_ += count * sizeof(float);
    return true;
  }
  std::size_t remaining() const { return bytes_.size() - at_; }
  bool done() const { return at_ == bytes_.size(); }

 private:
  std::string_view bytes_;
  std::size_t at_ = 0;
};

}  // namespace tsserve::server::bytes
