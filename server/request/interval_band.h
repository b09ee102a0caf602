#pragma once
// One prediction interval at one level, in the model's (scaled) space, [series_rows, F]
// row-major like ForecastOutput::forecast: what the codecs turn into a response's lower and
// upper tensors (codec/common/prediction_intervals.h), and what the forecast store keeps
// to score interval coverage against reported actuals (accuracy/issued_forecast.h).
//
// A calibrated band is the forecast plus and minus a width (the calibration's quantile for
// the level, step and column), rounded once to float: band_lower/band_upper are that one
// formula, for the codecs and for a store that keeps the widths instead of the bounds.

#include <cstddef>
#include <vector>

namespace tsserve::server {

struct IntervalBand {
  double level = 0;  // in (0, 1), e.g. 0.8
  std::vector<float> lower;
  std::vector<float> upper;
};

inline float band_lower(float value, double width) {
  return static_cast<float>(static_cast<double>(value) - width);
}
inline float band_upper(float value, double width) {
  return static_cast<float>(static_cast<double>(value) + width);
}

// The band at `level` around `values`, one width per value.
inline IntervalBand band_around(double level, const std::vector<float>& values,
                                const std::vector<double>& widths) {
  IntervalBand band;
  band.level = level;
  band.lower.resize(values.size());
  band.upper.resize(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    band.lower[i] = band_lower(values[i], widths[i]);
    band.upper[i] = band_upper(values[i], widths[i]);
  }
  return band;
}

}  // namespace tsserve::server
