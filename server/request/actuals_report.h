#pragma once
// A validated ReportActuals request and what became of its points: plain data between the
// tsserve.v1 codec (codec/v1/report_actuals_codec.h) and the forecast store
// (accuracy/forecast_store.h), so neither depends on the other.

#include <cstdint>
#include <string>
#include <vector>

namespace tsserve::server {

struct ActualsReport {
  std::string series_key;
  std::vector<std::string> variable_names;  // N unique names
  std::vector<int64_t> timestamps;          // T distinct Unix seconds
  std::vector<double> values;               // [T, N] row-major, raw units; may hold NaN
};

// Each reported point lands in exactly one of these (see ReportActualsResponse), except
// `matched`, which counts (forecast, point) pairs: one point can score several forecasts.
struct ActualsOutcome {
  int64_t matched = 0;
  int64_t unknown_key = 0;
  int64_t not_finite = 0;
  int64_t unknown_variable = 0;
  int64_t no_forecast = 0;
  int64_t already_reported = 0;
};

}  // namespace tsserve::server
