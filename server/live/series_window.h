#pragma once
// One live series as the server holds it: what the key follows (its binding, set by its
// first call) and the newest points it sent, kept so that the server can forecast from
// the key alone when the caller sends only its new points.
//
// The store refuses gaps and irregular timestamps (series_store.h), so a window is a
// regular grid: its timestamps are last_timestamp and the step, not a stored column.
//
// Plain data: copies are what SeriesStore hands out and what the snapshot file holds.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace tsserve::server {

// What a key follows, set by its first call.
struct SeriesBinding {
  std::string model;           // the model's name, resolved by the caller; never empty
  std::string pinned_version;  // "" = the key follows the model's default version
  // As the first call named the variables; empty when they are known by index.
  std::vector<std::string> variable_names;
  int64_t variables = 0;  // N >= 1
};

// One key's state.
struct SeriesWindow {
  std::string series_key;
  SeriesBinding binding;
  int64_t step_seconds = 0;    // the regular step; 0 while fewer than 2 points were ever seen
  int64_t last_timestamp = 0;  // Unix seconds of the newest point held (valid when points() > 0)
  std::vector<float> values;   // [points, N] row-major, oldest first (time-major)
  int64_t accepted_total = 0;  // points accepted over the key's life (not bounded by the window)

  // values.size() / N; 0 when N < 1.
  int64_t points() const;
  // The held points' times, oldest first: last_timestamp - (points - 1 - i) * step.
  std::vector<int64_t> timestamps() const;
};

// Field by field; values compare as floats (so 0.0 equals -0.0).
bool operator==(const SeriesBinding& a, const SeriesBinding& b);
bool operator!=(const SeriesBinding& a, const SeriesBinding& b);
bool operator==(const SeriesWindow& a, const SeriesWindow& b);
bool operator!=(const SeriesWindow& a, const SeriesWindow& b);

// One line for logs and test failures: key, model, N, points, step, last timestamp (the
// values themselves are left out).
std::ostream& operator<<(std::ostream& out, const SeriesWindow& window);

}  // namespace tsserve::server
