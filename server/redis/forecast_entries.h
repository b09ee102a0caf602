#pragma once
// The byte forms in which a shared store keeps a forecast (redis_kept_forecasts.h):
// what scoring needs, split so that a report reads only the points it reports.
//
//  - Meta, once per forecast: model, version, variable names, scaler, band levels.
//  - Entry, one per forecast time: the forecast's K values at that time and its bands'
//    bounds there, with the forecast's id and the 0-based step.
//
// Integers little-endian, strings a u32 length then the bytes, floats and doubles their
// IEEE-754 bits. Decoders check every length against what remains (a corrupt value is an
// error, never a crash or an overread).

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
};

struct ForecastEntry {
  uint64_t id = 0;
  int64_t step = 0;                        // 0-based
  std::vector<float> values;               // K
  std::vector<float> lower, upper;         // [L, K]
};

ForecastMeta meta_of(const IssuedForecast& forecast);
std::string encode_meta(const ForecastMeta& meta);
Status decode_meta(std::string_view bytes, ForecastMeta* meta);

// The entry of `forecast` at its 0-based step k.
std::string encode_entry(const IssuedForecast& forecast, uint64_t id, int64_t k);
// Every entry of one time's string, in the order they were appended.
Status decode_entries(std::string_view bytes, std::vector<ForecastEntry>* entries);

}  // namespace tsserve::server
