#pragma once
// The largest input magnitude for which the instance normalisation (instance_norm.h, the
// same in every family: PatchTST's RevIN, iTransformer's non-stationary norm, the fused
// CPU forward) provably stays finite in float32. It depends on seq_len only, not on the
// architecture, so the server's codecs refuse a series beyond it before it reaches any
// model. Header-only and free of LibTorch (target tsserve_model_config).
//
// The derivation. T = seq_len values x_t with |x_t| <= M, float32 (largest finite value
// F = 3.40282e38, unit roundoff u = 2^-24). Any summation order of T terms of magnitude
// <= A has partial sums <= (1 + u)^T * T * A <= g * T * A with g = exp(T * u) (1.00002 at
// T = 336); the handful of single roundings between the steps is absorbed by g, which
// multiplies every step's bound (g^k >= g for the k steps below).
//   1. mean = sum(x) / T: partial sums <= g*T*M, |mean| <= g*M.
//   2. centred = x - mean: |d_t| <= (1 + g) * M <= 2g*M.
//   3. var(centred) (biased): its own mean |m| <= 2g^2*M, deviations |d_t - m| <= 4g^2*M,
//      squares <= 16g^4*M^2, partial sums <= 16g^5*T*M^2. (A one-pass E[d^2] - m^2 sums
//      d^2 <= 4g^2*M^2: inside the same bound.)
//   4. stdev = sqrt(var + 1e-5): in [0.00316, 4g^3*M + 0.00316].
//   5. centred / stdev <= 2g*M / 0.00316 < 633g*M.
//   6. de-normalisation y * stdev + mean <= |y| * (4g^3*M + 0.00316) + g*M.
// With M = sqrt(F / (32 T)) / g^3, step 3's sums stay <= F / (2g) < F, every other step is
// far smaller, and step 6 stays finite for every network output |y| <= F / (8g^3*M)
// (2.4e20 at T = 336): far beyond any forecast in the normalised space. The network
// between steps 5 and 6 is not covered by this bound; the server checks its answer too.
// At T = 336 the limit is 1.77e17 (rounded down to three significant digits, so the
// number in messages reads as it is).

#include <cmath>
#include <cstdint>
#include <limits>

namespace tsserve::model {

// M for `seq_len` points, as the largest float not above it. REQUIRES: seq_len >= 1.
inline float largest_normalisable_magnitude(int64_t seq_len) {
  const double t = static_cast<double>(seq_len);
  const double g = std::exp(t * 0x1p-24);
  const double exact =
      std::sqrt(static_cast<double>(std::numeric_limits<float>::max()) / (32.0 * t)) / (g * g * g);
  if (!(exact >= std::numeric_limits<float>::min())) return 0.0f;  // no real seq_len
  // Three significant digits, rounded down.
  const double unit = std::pow(10.0, std::floor(std::log10(exact)) - 2);
  const double readable = std::floor(exact / unit) * unit;
  float limit = static_cast<float>(readable);
  if (static_cast<double>(limit) > readable) limit = std::nextafter(limit, 0.0f);
  return limit;
}

}  // namespace tsserve::model
