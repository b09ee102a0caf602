#include "server/codec/common/request_id.h"

#include <atomic>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <random>

namespace tsserve::server {
namespace {

uint64_t process_prefix() {
  // Drawn once: random_device may be slow, and the counter makes ids distinct anyway.
  static const uint64_t prefix = [] {
    std::random_device device;
    return (uint64_t{device()} << 32) ^ uint64_t { device() };
  }();
  return prefix;
}

}  // namespace

std::string generate_request_id() {
  static std::atomic<uint64_t> counter{0};
  const uint64_t n = counter.fetch_add(1, std::memory_order_relaxed) + 1;
  char text[48];
  const int length =
      std::snprintf(text, sizeof text, "%016" PRIx64 "-%" PRIu64, process_prefix(), n);
  return std::string(text, static_cast<std::size_t>(length));
}

Status resolve_request_id(const std::string& requested, std::string* out, const char* field) {
  if (requested.empty()) {
    *out = generate_request_id();
    return Status();
  }
  if (requested.size() > kMaxRequestIdBytes) {
    return {StatusCode::kInvalidArgument,
            std::string(field) + ": " + std::to_string(requested.size()) + " bytes; at most " +
                std::to_string(kMaxRequestIdBytes) + " bytes of printable ASCII"};
  }
  for (std::size_t i = 0; i < requested.size(); ++i) {
    const auto byte = static_cast<unsigned char>(requested[i]);
    if (byte < 0x20 || byte > 0x7e) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", byte);
      return {StatusCode::kInvalidArgument, std::string(field) + ": byte " + std::to_string(i) +
                                                " is " + hex +
                                                "; only printable ASCII (0x20..0x7e) is allowed"};
    }
  }
  *out = requested;
  return Status();
}

}  // namespace tsserve::server
