// Fuzz target: the shared store's kept-forecast readers (server/redis/forecast_entries.h),
// what a replica reads back from Redis that another replica (or anything else with access
// to Redis) wrote.
//
// Input: byte 0 chooses the reader. Bit 0 clear: the rest is a forecast's meta. Bit 0 set:
// the rest is one time's string of entries.
// Invariants: decoding never crashes nor allocates past the input's size (ASan); a refusal
// says why. A meta that decodes is canonical (encoding it again gives the same bytes) and
// has a scaler of 0 or K; entries that decode hold K values and L x K bounds each, and
// their encodings add up to the input.

#include <string>
#include <string_view>
#include <vector>

#include "fuzz_target.h"
#include "server/redis/forecast_entries.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tsserve;
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  if ((data[0] & 1) == 0) {
    server::ForecastMeta meta;
    const server::Status status = server::decode_meta(bytes, &meta);
    if (!status.ok()) {
      FUZZ_CHECK(!status.message().empty(), "a refusal that says nothing");
      return 0;
    }
    FUZZ_CHECK(meta.scaler_mean.empty() || meta.scaler_mean.size() == meta.variable_names.size(),
               "a scaler of neither 0 nor K variables");
    FUZZ_CHECK(meta.scaler_std.size() == meta.scaler_mean.size(), "means and deviations differ");
    FUZZ_CHECK(server::encode_meta(meta) == bytes, "a decoded meta encodes to other bytes");
    return 0;
  }
  std::vector<server::ForecastEntry> entries;
  const server::Status status = server::decode_entries(bytes, &entries);
  if (!status.ok()) {
    FUZZ_CHECK(!status.message().empty(), "a refusal that says nothing");
    return 0;
  }
  size_t total = 0;
  for (const server::ForecastEntry& entry : entries) {
    FUZZ_CHECK(entry.lower.size() == entry.upper.size(), "lower and upper bounds differ");
    FUZZ_CHECK(entry.values.empty() ? entry.lower.empty() : entry.lower.size() % entry.values.size() == 0,
               "bounds that are not L x K");
    total += 24 + 4 * (entry.values.size() + entry.lower.size() + entry.upper.size());
  }
  FUZZ_CHECK(total == bytes.size(), "entries that do not add up to the input");
  return 0;
}
