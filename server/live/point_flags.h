#pragma once
// What Observe says of each new point: the forecast made for it and whether the point lies
// inside that forecast's calibrated intervals.
//
// A point may be covered by several kept forecasts of its key (one issued every step
// covers the next F points). The one that speaks for it is the most recent, the one
// with the shortest horizon: it saw the most history, so its interval is the narrowest
// honest one. Every covering forecast is still scored into the accuracy metrics.
//
// "Outside" is decided in the model's space, as the accuracy metrics' coverage is
// (accuracy_metrics.cpp), so a flag and the coverage counter never disagree; bounds and
// forecast are reported in raw units.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "server/accuracy/kept_forecasts.h"

namespace tsserve::server {

struct IntervalFlagValue {
  double level = 0;
  double lower = 0;  // raw units
  double upper = 0;
  bool outside = false;
};

struct PointFlag {
  bool scored = false;  // a kept forecast covered the point; nothing below is set otherwise
  double forecast = 0;  // raw units
  int64_t step = 0;     // 1 = the forecast's first point
  std::vector<IntervalFlagValue> intervals;  // level ascending
  // |actual - forecast| over the room the highest level's interval leaves on the side the
  // point fell on, in the model's space: above 1 exactly when the point lies outside it;
  // 0 without intervals; the largest double when that side has no room and the point is
  // off the forecast.
  double score = 0;
  bool anomaly = false;  // outside the highest level's interval
  std::string model;     // the forecast's, for the anomaly metrics' labels
  std::string version;
};

class PointFlagger {
 public:
  // `points`: the report's T * N points.
  explicit PointFlagger(std::size_t points);

  // One (forecast, point) pair the store scored (a ForecastStore::ScoreSink): kept when
  // its forecast has the shortest horizon yet seen for that point. Copies what it needs,
  // as `scored` is valid during the call only.
  void offer(const ScoredPoint& scored);

  // The flag of report point `point` (t * N + n).
  PointFlag flag(std::size_t point) const;

 private:
  struct Band {
    double level = 0;
    double lower = 0;  // the model's space
    double upper = 0;
  };
  struct Nearest {
    int64_t step = 0;
    double forecast = 0;  // the model's space
    double actual = 0;
    std::vector<Band> bands;  // level ascending
    bool scaled = false;      // raw = value * std + mean
    double mean = 0;
    double std = 1;
    std::string model;
    std::string version;
  };
  double raw(const Nearest& nearest, double value) const;

  std::vector<std::optional<Nearest>> nearest_;
};

}  // namespace tsserve::server
