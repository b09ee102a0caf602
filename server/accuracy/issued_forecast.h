#pragma once
// One forecast the server issued for a series key, as the forecast store keeps it: enough
// to score actuals against it later, in the model's space (scaled when the request's
// scaler applied), where errors of different variables are comparable.

#include <cstdint>
#include <string>
#include <vector>

#include "server/request/interval_band.h"
#include "server/request/model_shape.h"
#include "server/request/request_types.h"

namespace tsserve::server {

struct IssuedForecast {
  std::string series_key;
  std::string model;    // labels of the accuracy metrics
  std::string version;
  std::vector<int64_t> times;               // F forecast times, Unix seconds, increasing
  // The forecast's K rows' variables (K = N, or a subset model's targets); "0", "1", ...
  // (their indices among the request's) when the request named none.
  std::vector<std::string> variable_names;
  std::vector<float> values;  // [K, F] row-major, the model's space
  // When the request's scaler applied: each variable's mean and std, so an actual x is
  // scored as (x - mean) / std. Empty otherwise (actuals are scored as sent).
  std::vector<double> scaler_mean;
  std::vector<double> scaler_std;
  // Interval bands, by level; empty until the Forecast path records them.
  std::vector<IntervalBand> bands;
  // When every band is band_around(level, values, widths) (the calibrated ones are): each
  // band's widths, [K, F]; empty otherwise. The widths depend on the model version and the
  // request's columns only, so a shared store keeps them once for many forecasts.
  std::vector<std::vector<double>> band_widths;

  int64_t variables() const { return static_cast<int64_t>(variable_names.size()); }
  int64_t steps() const { return static_cast<int64_t>(times.size()); }
  // An actual in raw units -> the model's space of this forecast's variable `n`.
  double to_model_space(int64_t n, double actual) const {
    return scaler_mean.empty() ? actual
                               : (actual - scaler_mean[static_cast<size_t>(n)]) /
                                     scaler_std[static_cast<size_t>(n)];
  }
};

// How the store names variable `n` of a request with `names` (empty: the request named
// none, and its variables are known by index, "0", "1", ...). Reports must name them alike.
inline std::string stored_variable_name(const std::vector<std::string>& names, int64_t n) {
  return names.empty() ? std::to_string(n) : names[static_cast<size_t>(n)];
}
// Variables 0..variables-1 so named: the names of a report of a key's window.
inline std::vector<std::string> stored_variable_names(const std::vector<std::string>& names,
                                                      int64_t variables) {
  std::vector<std::string> stored;
  for (int64_t n = 0; n < variables; ++n) stored.push_back(stored_variable_name(names, n));
  return stored;
}

// The forecast a tsserve.v1 Forecast call computed, for the store. REQUIRES: the input
// has a series_key and forecast_timestamps; `forecast` is the runtime's [K, F] in the
// model's space (ForecastOutput::forecast, before the encoder unscales it).
IssuedForecast issued_forecast_of(const ForecastInput& input, const ModelShape& model,
                                  const std::vector<float>& forecast);

}  // namespace tsserve::server
