#include "server/codec/common/forecast_timestamps.h"

#include <limits>

namespace tsserve::server {

ForecastTimestamps continue_timestamps(const int64_t* input, int64_t count, int64_t pred_len) {
  ForecastTimestamps out;
  if (count == 0) return out;  // nothing asked, nothing to explain
  if (count < 2) {
    out.note = "timestamps: one point has no step to continue; send at least two";
    return out;
  }
  // Differences of increasing int64s can overflow only past int64 (decoder-checked order
  // keeps each positive); compute in unsigned arithmetic, then compare.
  const uint64_t step = static_cast<uint64_t>(input[1]) - static_cast<uint64_t>(input[0]);
  for (int64_t i = 2; i < count; ++i) {
    const uint64_t gap = static_cast<uint64_t>(input[i]) - static_cast<uint64_t>(input[i - 1]);
    if (gap != step) {
      out.note = "timestamps: irregular steps (" + std::to_string(step) + " s between points 0 and "
                 "1, " + std::to_string(gap) + " s between points " + std::to_string(i - 1) +
                 " and " + std::to_string(i) + "); forecast times need one step";
      return out;
    }
  }
  const int64_t last = input[count - 1];
  const auto max = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (step > max || (pred_len > 0 && step > (max - static_cast<uint64_t>(last < 0 ? 0 : last)) /
                                                 static_cast<uint64_t>(pred_len))) {
    out.note = "timestamps: the forecast's times would pass the largest int64";
    return out;
  }
  out.times.reserve(static_cast<size_t>(pred_len));
  for (int64_t k = 1; k <= pred_len; ++k) {
    out.times.push_back(last + static_cast<int64_t>(step) * k);
  }
  return out;
}

}  // namespace tsserve::server
