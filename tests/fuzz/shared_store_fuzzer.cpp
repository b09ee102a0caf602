// Fuzz target: the shared store's readers (server/redis/forecast_layout.h and
// window_layout.h), what a replica reads back from Redis that another replica (or
// anything else with access to Redis) wrote.
//
// Input: byte 0 chooses the reader (modulo 3). 0: the rest is a forecast's meta. 1: a
// kept forecast as the store writes it (a u32 length, that many bytes of a meta, then its
// body), each step's entry read (with zero widths when the meta names widths). 2: a u32
// length, that many bytes of a window's head, then its ring.
// Invariants: decoding never crashes nor allocates past the input's size (ASan); a refusal
// says why. A meta that decodes is canonical (encoding it again gives the same bytes), has
// a scaler of 0 or K and increasing times; a forecast that decodes holds F entries, each
// of K values and L x K bounds; a window that decodes holds P x N values, P within its capacity and its
// accepted total, and its head encodes back to the input's head.

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_target.h"
#include "server/redis/forecast_layout.h"
#include "server/redis/window_layout.h"

namespace {

// The u32-length-prefixed first part of `bytes` and the rest; false when too short.
bool split(std::string_view bytes, std::string_view* first, std::string_view* rest) {
  uint32_t length = 0;
  if (bytes.size() < sizeof(length)) return false;
  std::memcpy(&length, bytes.data(), sizeof(length));
  bytes.remove_prefix(sizeof(length));
  if (bytes.size() < length) return false;
  *first = bytes.substr(0, length);
  *rest = bytes.substr(length);
  return true;
}

bool refused(const tsserve::server::Status& status) {
  if (status.ok()) return false;
  FUZZ_CHECK(!status.message().empty(), "a refusal that says nothing");
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tsserve;
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  const int reader = data[0] % 3;
  if (reader == 2) {
    std::string_view head, ring;
    if (!split(bytes, &head, &ring)) return 0;
    server::SeriesWindow window;
    int64_t capacity = 0;
    if (refused(server::decode_window(head, ring, &window, &capacity))) return 0;
    FUZZ_CHECK(window.binding.variables >= 1 &&
                   window.values.size() ==
                       static_cast<size_t>(window.points() * window.binding.variables),
               "a window of other than P x N values");
    FUZZ_CHECK(window.points() <= capacity && window.points() <= window.accepted_total,
               "more points than the ring or the key ever held");
    FUZZ_CHECK(server::encode_window_head(window, capacity) == head,
               "a decoded head encodes to other bytes");
    return 0;
  }
  std::string_view meta_bytes = bytes, rest;
  if (reader == 1 && !split(bytes, &meta_bytes, &rest)) return 0;
  server::ForecastMeta meta;
  std::string body;
  if (reader == 1 && refused(server::decode_forecast(bytes, &meta, &body))) return 0;
  if (reader == 0 && refused(server::decode_meta(meta_bytes, &meta))) return 0;
  FUZZ_CHECK(meta.scaler_mean.empty() || meta.scaler_mean.size() == meta.variable_names.size(),
             "a scaler of neither 0 nor K variables");
  FUZZ_CHECK(meta.scaler_std.size() == meta.scaler_mean.size(), "means and deviations differ");
  for (size_t i = 1; i < meta.times.size(); ++i) {
    FUZZ_CHECK(meta.times[i - 1] < meta.times[i], "times that do not increase");
  }
  FUZZ_CHECK(server::encode_meta(meta) == meta_bytes, "a decoded meta encodes to other bytes");
  if (reader == 0) return 0;
  // A meta that names widths is scored with its widths: zeros of the size it needs.
  const std::vector<double> widths(
      meta.widths_id.empty() ? 0 : meta.levels.size() * meta.variables() * meta.times.size(), 0.0);
  const size_t entry_size = server::entry_bytes(meta);
  FUZZ_CHECK(body.size() == meta.times.size() * entry_size, "a body of other than F entries");
  for (size_t k = 0; k < meta.times.size(); ++k) {
    server::ForecastEntry entry;
    const bool read = server::decode_entry(std::string_view(body).substr(k * entry_size, entry_size),
                                           meta, widths, static_cast<int64_t>(k), &entry)
                          .ok();
    FUZZ_CHECK(read, "an entry of a decoded forecast refused");
    FUZZ_CHECK(entry.values.size() == meta.variables() &&
                   entry.lower.size() == meta.levels.size() * meta.variables() &&
                   entry.upper.size() == entry.lower.size(),
               "an entry of other than K values and L x K bounds");
  }
  return 0;
}
