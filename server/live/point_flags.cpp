#include "server/live/point_flags.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tsserve::server {

PointFlagger::PointFlagger(std::size_t points) : nearest_(points) {}

void PointFlagger::offer(const ScoredPoint& scored) {
  if (scored.report_point >= nearest_.size()) return;
  std::optional<Nearest>& slot = nearest_[scored.report_point];
  if (slot && slot->step <= scored.step) return;
  Nearest nearest;
  nearest.step = scored.step;
  nearest.forecast = scored.forecast_value;
  nearest.actual = scored.actual;
  for (const ScoredBand& band : scored.bands) {
    nearest.bands.push_back({band.level, band.lower, band.upper});
  }
  std::sort(nearest.bands.begin(), nearest.bands.end(),
            [](const Band& a, const Band& b) { return a.level < b.level; });
  nearest.scaled = scored.scaled;
  nearest.mean = scored.mean;
  nearest.std = scored.std;
  nearest.model = scored.model;
  nearest.version = scored.version;
  slot = std::move(nearest);
}

double PointFlagger::raw(const Nearest& nearest, double value) const {
  return nearest.scaled ? value * nearest.std + nearest.mean : value;
}

PointFlag PointFlagger::flag(std::size_t point) const {
  PointFlag flag;
  if (point >= nearest_.size() || !nearest_[point]) return flag;
  const Nearest& nearest = *nearest_[point];
  flag.scored = true;
  flag.forecast = raw(nearest, nearest.forecast);
  flag.step = nearest.step;
  flag.model = nearest.model;
  flag.version = nearest.version;
  for (const Band& band : nearest.bands) {
    const bool outside = nearest.actual < band.lower || nearest.actual > band.upper;
    flag.intervals.push_back(
        {band.level, raw(nearest, band.lower), raw(nearest, band.upper), outside});
  }
  if (!nearest.bands.empty()) {
    // Measured towards the side the point fell on, so that the score exceeds 1 exactly
    // when the point lies outside the band (float32 bounds need not be symmetric).
    const Band& widest = nearest.bands.back();
    const double residual = nearest.actual - nearest.forecast;
    const double room =
        residual >= 0 ? widest.upper - nearest.forecast : nearest.forecast - widest.lower;
    if (room > 0) {
      flag.score = std::fabs(residual) / room;
    } else {
      flag.score = residual != 0 ? std::numeric_limits<double>::max() : 0;
    }
    flag.anomaly = flag.intervals.back().outside;
  }
  return flag;
}

}  // namespace tsserve::server
