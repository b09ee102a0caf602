#pragma once
// One prediction interval at one level, in the model's (scaled) space, [series_rows, F]
// row-major like ForecastOutput::forecast: what the codecs turn into a response's lower and
// upper tensors (codec/common/prediction_intervals.h), and what the forecast store keeps
// to score interval coverage against reported actuals (accuracy/issued_forecast.h).

#include <vector>

namespace tsserve::server {

struct IntervalBand {
  double level = 0;  // in (0, 1), e.g. 0.8
  std::vector<float> lower;
  std::vector<float> upper;
};

}  // namespace tsserve::server
