#pragma once
// A validated ReportActuals request and what became of its points: plain data between the
// tsserve.v1 codec (codec/v1/report_actuals_codec.h) and the forecast store
// (accuracy/forecast_store.h), so neither depends on the other.

#include <cstdint>
#include <string>
#include <vector>

namespace tsserve::server {

// Bounds on one report, checked by both doors as it is read, before anything is matched.
// A report scores kept forecasts, each of at most max_batch_rows variables (448 by
// default) and pred_len steps, so real reports are far below them; they keep what one
// report holds (its names, and T x N doubles copied on their way to the store) to a few
// MB. More points go in several reports.
inline constexpr int64_t kMaxReportedVariables = 65'536;
inline constexpr int64_t kMaxReportedPoints = int64_t{1} << 20;  // T x N

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
