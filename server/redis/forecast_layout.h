#pragma once
// The byte forms in which the shared store keeps a forecast (redis_kept_forecasts.h):
//
//  - The forecast, one value never changed: its meta (model, version, variable names,
//    scaler, band levels, the F forecast times and the id of its bands' widths, "" when
//    the body holds the bounds), then its body: F entries of entry_bytes() each (the
//    forecast's K values at that step, then, without widths, per band its K lower and K
//    upper bounds). Replicas cache it whole, so scoring reads nothing of it again.
//  - Widths, when every band is the forecast +- a width (the calibrated bands are:
//    interval_band.h): L x K x F doubles, the same for every forecast of one model version
//    and one set of columns, so kept once under an id of their bytes (a 128-bit hash) for
//    all of them. Replicas cache them.
// What was scored is kept per reported point, not per forecast (scoring_plan.h).
// A body with widths is 1 + 2 L times smaller: the bounds are computed when scored, with
// the one formula the response used (band_lower, band_upper), so they are the same bits.
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
  std::string widths_id;       // "" = the bounds are in the body

  std::size_t variables() const { return variable_names.size(); }
  // The step of `time` (0-based), or -1 when the forecast does not cover it.
  int64_t step_of(int64_t time) const;
};

// One step of a forecast.
struct ForecastEntry {
  std::vector<float> values;        // K
  std::vector<float> lower, upper;  // [L, K]
};

// The forecast's meta; `widths_id` as widths_of() gave it ("" for bounds in the body).
ForecastMeta meta_of(const IssuedForecast& forecast, std::string widths_id);
std::string encode_meta(const ForecastMeta& meta);
Status decode_meta(std::string_view bytes, ForecastMeta* meta);

// When every band of `forecast` is band_around(level, values, its widths) bit for bit:
// true, with the widths' bytes (L x K x F doubles) in *bytes and their id in *id.
bool widths_of(const IssuedForecast& forecast, std::string* bytes, std::string* id);
// The widths' bytes as doubles; an error unless they hold exactly L x K x F of `meta`'s.
Status decode_widths(std::string_view bytes, const ForecastMeta& meta, std::vector<double>* widths);

// Bytes of one step's entry in the body: 4 K, and 4 K 2 L more without widths.
std::size_t entry_bytes(const ForecastMeta& meta);

// `forecast` as `meta` lays it out: the meta (u32 length, then its bytes), then the body.
std::string encode_forecast(const IssuedForecast& forecast, const ForecastMeta& meta);
// A forecast's meta into *meta and its body into *body; an error unless the body holds
// exactly F entries.
Status decode_forecast(std::string_view bytes, ForecastMeta* meta, std::string* body);
// Step k's entry (body bytes k * entry_bytes(meta) on, exactly entry_bytes(meta) of them); `widths` (decode_widths') when the meta
// names them, else unused.
Status decode_entry(std::string_view bytes, const ForecastMeta& meta,
                    const std::vector<double>& widths, int64_t k, ForecastEntry* entry);

}  // namespace tsserve::server
