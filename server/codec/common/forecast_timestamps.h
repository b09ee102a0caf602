#pragma once
// The times of a forecast's F points, continued from the request's input timestamps: the
// step between the input's points, repeated. Only an evenly spaced input has a step to
// continue; for any other the answer is no timestamps and a note saying why (a response
// field, not an error: the forecast itself is still good).

#include <cstdint>
#include <string>
#include <vector>

namespace tsserve::server {

struct ForecastTimestamps {
  std::vector<int64_t> times;  // F entries, or none
  std::string note;            // why `times` is empty; "" when it is not, or no input times
};

// `input` holds `count` Unix seconds, oldest first (the decoder checked they increase).
// Regular: every gap equals the first; then times[k] = last + step * (k + 1). A forecast
// time past int64's range gives none (with a note), never a wrapped value.
ForecastTimestamps continue_timestamps(const int64_t* input, int64_t count, int64_t pred_len);

}  // namespace tsserve::server
