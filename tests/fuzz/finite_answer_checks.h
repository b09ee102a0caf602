#pragma once
// Extreme magnitudes, the invariants for the request fuzzers: an accepted series stays
// within the line the model's normalisation can take, and a successful answer is always
// finite. The model's output is a stand-in (response_checks.h); here one of its values is
// replaced by an extreme one, picked by the accepted input's own bits so that mutating the
// series reaches every kind, and the encoder must either send only finite numbers or
// refuse with OUT_OF_RANGE naming the output - and it must refuse exactly when the value
// it would send is not finite.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "fuzz_target.h"
#include "request_checks.h"
#include "server/request/model_shape.h"
#include "server/request/request_types.h"
#include "server/status/status.h"
#include "tsserve/model/normalisation_limit.h"

namespace tsserve::fuzz {

// Every value the model is handed is within largest_normalisable_magnitude(T).
inline void check_within_normalisation_line(const server::ForecastInput& input,
                                            const server::ModelShape& model) {
  const float limit = model::largest_normalisable_magnitude(model.seq_len);
  for (float x : input.rows) {
    FUZZ_CHECK(std::fabs(x) <= limit, "accepted a value of magnitude " + std::to_string(x) +
                                          " beyond the normalisation's line");
  }
}

struct Poison {
  std::size_t at = 0;  // index into the stand-in output
  float value = 0;
};

// One extreme value and where it goes among `count`, from the bits of `seed_values`.
inline Poison pick_poison(const std::vector<float>& seed_values, std::size_t count) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  constexpr float kMax = std::numeric_limits<float>::max();
  static const float kKinds[] = {
      kInf, -kInf, std::numeric_limits<float>::quiet_NaN(), kMax, -kMax, 1e38f, -4e37f, 12.5f};
  uint32_t hash = 2166136261u;  // FNV-1a over the first values' bits
  for (std::size_t i = 0; i < seed_values.size() && i < 64; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &seed_values[i], sizeof bits);
    hash = (hash ^ bits) * 16777619u;
  }
  return {count == 0 ? 0 : (hash >> 3) % count, kKinds[hash % 8]};
}

// An encoder's answer to a poisoned output: OK exactly when `sendable`, and then every
// float of `sent` is finite; otherwise OUT_OF_RANGE whose message starts with `field`.
inline void check_finite_answer(const server::Status& status, bool sendable,
                                const std::vector<float>& sent, const std::string& field) {
  if (!status.ok()) {
    FUZZ_CHECK(!sendable, "refused a finite answer: " + status.message());
    FUZZ_CHECK(
        status.code() == server::StatusCode::kOutOfRange,
        "a non-finite answer refused with code " + std::to_string(static_cast<int>(status.code())));
    FUZZ_CHECK(status.message().rfind(field, 0) == 0,
               "the refusal does not name " + field + ": " + status.message());
    return;
  }
  FUZZ_CHECK(sendable, "answered OK although a value it sends is not finite");
  for (float x : sent) FUZZ_CHECK(std::isfinite(x), "answered OK with " + std::to_string(x));
}

// Whether forecast value `at` of a stand-in ([series_rows, F], model space) holding
// `value` is finite as sent: unscaled as forecast_service.proto states when the scaler
// applied.
inline bool sendable_forecast_value(const server::ForecastInput& input,
                                    const server::ModelShape& model, std::size_t at, float value) {
  if (!input.scaler_applied) return std::isfinite(value);
  const auto row = static_cast<std::size_t>(static_cast<int64_t>(at) / model.pred_len);
  const auto c = static_cast<std::size_t>(input.scaler_column[row]);
  return std::isfinite(
      static_cast<float>(static_cast<double>(value) * model.scaler_std[c] + model.scaler_mean[c]));
}

}  // namespace tsserve::fuzz
