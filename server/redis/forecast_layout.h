#pragma once
// The byte forms in which the shared store keeps a forecast (redis_kept_forecasts.h),
// split so that a report reads only the steps it reports:
//
//  - Meta, once per forecast, never changed: model, version, variable names, scaler,
//    band levels and the F forecast times. Replicas cache it.
//  - Body: F entries of entry_bytes() each (the forecast's K values at that step, then per
//    band its K lower and K upper bounds), then the marks: F * K bits, bit k * K + v set
//    once (forecast step k, variable v) has been scored.
//
// In byte_codec.h's forms. Decoders check every length against what remains (a corrupt
// value is an error, never a crash or an overread).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "server/accuracy/issued_forecast.h"
#include "server/status/status.h"

namespace tsserve::server {

struct ForecastMeta {
  std::string model;
  std::string version;
  std::vector<std::string> variable_names;  // K
  std::vector<double> scaler_mean;          // K or none
  std::vector<double> scaler_std;
  std::vector<double> levels;  // L band levels, the forecast's order
  std::vector<int64_t> times;  // F, increasing

  std::size_t variables() const { return variable_names.size(); }
  // The step of `time` (0-based), or -1 when the forecast does not cover it.
  int64_t step_of(int64_t time) const;
};

// One step of a forecast.
struct ForecastEntry {
  std::vector<float> values;        // K
  std::vector<float> lower, upper;  // [L, K]
};

ForecastMeta meta_of(const IssuedForecast& forecast);
std::string encode_meta(const ForecastMeta& meta);
Status decode_meta(std::string_view bytes, ForecastMeta* meta);

// Bytes of one step's entry in the body: 4 K (1 + 2 L).
std::size_t entry_bytes(const ForecastMeta& meta);
// The body's bit that marks (step k, variable v) scored.
std::size_t mark_bit(const ForecastMeta& meta, int64_t k, int64_t v);

// The body of `forecast`: its entries, then its marks, all clear.
std::string encode_body(const IssuedForecast& forecast);
// One step's entry, exactly entry_bytes(meta) bytes.
Status decode_entry(std::string_view bytes, const ForecastMeta& meta, ForecastEntry* entry);

}  // namespace tsserve::server
