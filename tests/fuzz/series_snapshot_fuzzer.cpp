// Fuzz target: the live series' snapshot reader (server/live/series_snapshot.h), what the
// server reads back from disk at start.
//
// Input: byte 0 chooses how the rest is read. Bit 0 clear: the rest is a snapshot file as
// it is. Bit 0 set: the rest with its last 8 bytes replaced by the checksum of the bytes
// before them, so that mutations get past the checksum to the windows behind it.
// Invariants: decoding never crashes nor allocates past the input's size (ASan); a refusal
// says why and hands back no windows. What decodes is canonical (encoding it again gives
// the same bytes, which decode to equal windows) and holds the store's invariants; a store
// restoring it under small limits keeps the most recently used of them, in order.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_target.h"
#include "server/live/series_snapshot.h"
#include "server/live/memory_series_store.h"

namespace tsserve::fuzz {
namespace {

// The snapshot bytes `data` stands for (see the header comment). REQUIRES: size >= 1.
std::string snapshot_bytes(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  if ((data[0] & 1) != 0 && bytes.size() >= 8) {
    const uint64_t checksum =
        server::series_snapshot_checksum(std::string_view(bytes).substr(0, bytes.size() - 8));
    for (int i = 0; i < 8; ++i) {
      bytes[bytes.size() - 8 + i] = static_cast<char>((checksum >> (8 * i)) & 0xff);
    }
  }
  return bytes;
}

void check_window(const server::SeriesWindow& window) {
  const int64_t variables = window.binding.variables;
  FUZZ_CHECK(!window.series_key.empty() && !window.binding.model.empty(), "a nameless window");
  FUZZ_CHECK(variables >= 1, "N < 1");
  FUZZ_CHECK(window.binding.variable_names.empty() ||
                 static_cast<int64_t>(window.binding.variable_names.size()) == variables,
             "names other than 0 or N");
  FUZZ_CHECK(window.points() >= 1 &&
                 window.values.size() == static_cast<size_t>(window.points() * variables),
             "values other than points x N");
  FUZZ_CHECK(window.accepted_total >= window.points(), "fewer accepted than held");
  for (const float value : window.values) FUZZ_CHECK(std::isfinite(value), "a missing value");
  if (window.points() >= 2) {
    FUZZ_CHECK(window.step_seconds > 0, "no step for several points");
    const std::vector<int64_t> times = window.timestamps();
    FUZZ_CHECK(times.back() == window.last_timestamp, "the timestamps end elsewhere");
  }
}

}  // namespace
}  // namespace tsserve::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tsserve;
  if (size == 0) return 0;
  const std::string bytes = fuzz::snapshot_bytes(data, size);
  std::vector<server::SeriesWindow> windows;
  const server::Status status = server::decode_series_snapshot(bytes, &windows);
  if (!status.ok()) {
    FUZZ_CHECK(windows.empty(), "windows handed back with a refusal");
    FUZZ_CHECK(!status.message().empty(), "a refusal that says nothing");
    return 0;
  }
  for (const server::SeriesWindow& window : windows) fuzz::check_window(window);

  const std::string encoded = server::encode_series_snapshot(windows);
  FUZZ_CHECK(encoded == bytes, "decoded windows encode to other bytes");
  std::vector<server::SeriesWindow> again;
  const server::Status second = server::decode_series_snapshot(encoded, &again);
  FUZZ_CHECK(second.ok(), "the re-encoded snapshot is refused: " + second.message());
  FUZZ_CHECK(again == windows, "the re-encoded snapshot decodes to other windows");

  // Restored under small limits: the most recently used windows that fit, in their order.
  server::MemorySeriesStore store(server::SeriesStoreLimits{3, 1 << 16});
  server::SeriesDrops drops;
  store.restore(windows, &drops);
  const std::vector<server::SeriesWindow> kept = store.snapshot();
  FUZZ_CHECK(kept.size() + static_cast<size_t>(drops.evicted) == windows.size(),
             "restore lost or invented windows");
  FUZZ_CHECK(store.keys() <= 3 && store.bytes() <= (1 << 16), "restore broke the limits");
  FUZZ_CHECK(std::equal(kept.begin(), kept.end(), windows.end() - kept.size()),
             "restore kept other windows than the most recently used");
  return 0;
}
