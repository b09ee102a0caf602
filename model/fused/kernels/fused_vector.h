#pragma once
// Vector arithmetic of the fused kernels: one vector type of TSSERVE_FUSED_LANES floats
// (GCC vector extensions) and the few functions the forward needs on it. Included only
// by the kernel sources, each compiled once per instruction set (model/fused/CMakeLists.txt),
// so everything here lands in that copy's namespace and is inlined into it.

#include <immintrin.h>

#include <cstring>

#ifndef TSSERVE_FUSED_LANES
#error "TSSERVE_FUSED_LANES must be defined by the build"
#endif

namespace tsserve::model::TSSERVE_FUSED_NAMESPACE {
namespace {

constexpr int kLanes = TSSERVE_FUSED_LANES;

// Stages stay out of line (each runs once per row and layer, so the call costs nothing)
// so that `perf report` attributes time per stage.
#define TSSERVE_STAGE __attribute__((noinline))

typedef float vf __attribute__((vector_size(kLanes * sizeof(float))));
typedef int vi __attribute__((vector_size(kLanes * sizeof(int))));

inline vf load(const float* p) {
  vf v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store(float* p, vf v) { std::memcpy(p, &v, sizeof v); }
// x - 0 is x for every x (x + 0 is not, for -0), so this folds to a bare broadcast.
inline vf splat(float x) { return x - vf{}; }

// The instruction set's own vector operations that GCC's vector extensions lack.
// (The AVX-512 ones in their zero-masked form: the plain ones start from
// _mm512_undefined_ps, which GCC 12 reports as maybe-uninitialized.)
// vmax(a, b) = a > b ? a : b and vmin(a, b) = a < b ? a : b, lane by lane: one max/min
// instruction, where GCC compiles the same conditional to a compare and a blend. Both
// return b when either is NaN, exactly as the conditional does.
#if TSSERVE_FUSED_LANES == 16
inline vf vsqrt(vf x) { return (vf)_mm512_maskz_sqrt_ps(0xffff, (__m512)x); }
inline vf approximate_reciprocal(vf x) { return (vf)_mm512_maskz_rcp14_ps(0xffff, (__m512)x); }
inline vf vmax(vf a, vf b) { return (vf)_mm512_maskz_max_ps(0xffff, (__m512)a, (__m512)b); }
inline vf vmin(vf a, vf b) { return (vf)_mm512_maskz_min_ps(0xffff, (__m512)a, (__m512)b); }
#elif TSSERVE_FUSED_LANES == 8
inline vf vsqrt(vf x) { return (vf)_mm256_sqrt_ps((__m256)x); }
inline vf approximate_reciprocal(vf x) { return (vf)_mm256_rcp_ps((__m256)x); }
inline vf vmax(vf a, vf b) { return (vf)_mm256_max_ps((__m256)a, (__m256)b); }
inline vf vmin(vf a, vf b) { return (vf)_mm256_min_ps((__m256)a, (__m256)b); }
#elif TSSERVE_FUSED_LANES == 4
inline vf vsqrt(vf x) { return (vf)_mm_sqrt_ps((__m128)x); }
inline vf approximate_reciprocal(vf x) { return (vf)_mm_rcp_ps((__m128)x); }
inline vf vmax(vf a, vf b) { return (vf)_mm_max_ps((__m128)a, (__m128)b); }
inline vf vmin(vf a, vf b) { return (vf)_mm_min_ps((__m128)a, (__m128)b); }
#else
#error "TSSERVE_FUSED_LANES must be 4, 8 or 16"
#endif

// 1 / x to about 1 ulp: the hardware estimate (12 or 14 bits) and one Newton step.
// Used where a full division was the stage's bottleneck (vdivps issues once every 3.5-5
// cycles on this VM's EPYC); the estimate differs between CPU vendors, so the last bit
// may too, as with the instruction set itself (fused_forward.h).
inline vf reciprocal(vf x) {
  const vf estimate = approximate_reciprocal(x);
  return estimate * (splat(2.0f) - x * estimate);
}

// 2^x for x <= 0 (a few ulp above 0 is fine too): the softmax's exp with log2(e) folded
// into the score scale, so no Cody-Waite reduction is needed: n = round(x) and
// r = x - n in [-0.5, 0.5] are exact, and 2^r is a degree-5 minimax polynomial (max
// relative error 2.4e-7 evaluated in float, measured on a 2e5-point grid; Cephes' exp
// took 11 operations here, this 6). Inputs below -126 are clamped there (2^-126, the
// smallest normal float).
inline vf vexp2_nonpositive(vf x) {
  x = vmax(splat(-126.0f), x);
  // n = round(x) with the 1.5 * 2^23 trick (round to nearest, no float->int call).
  const vf magic = splat(12582912.0f);
  const vf shifted = x + magic;
  const vf r = x - (shifted - magic);
  vf y = splat(1.3276446843519807e-3f);
  y = y * r + splat(9.675533510744572e-3f);
  y = y * r + splat(5.550713092088699e-2f);
  y = y * r + splat(2.4022120237350464e-1f);
  y = y * r + splat(6.931469440460205e-1f);
  y = y * r + splat(1.0000001192092896f);
  vi bits;
  std::memcpy(&bits, &shifted, sizeof bits);
  vi magic_bits;
  std::memcpy(&magic_bits, &magic, sizeof magic_bits);
  const vi exponent = ((bits - magic_bits) + 127) << 23;
  vf scale;
  std::memcpy(&scale, &exponent, sizeof scale);
  return y * scale;
}

// GELU, exact (erf) form: x * Phi(x) = x * (0.5 + 0.5 * erf(x / sqrt 2)), with erf(t) as
// the odd rational function t * P(t^2) / Q(t^2) on [-4, 4] that Eigen and XLA use for
// float (erf(4) = 1 - 1.5e-8). Here t = x / sqrt 2 is folded into the coefficients
// (P's k-th divided by 2^k and by 2 sqrt 2, Q's by 2^k), so x is clamped to
// [-4 sqrt 2, 4 sqrt 2] and nothing else is scaled. Measured in float32 against
// math.erf on a 4e5-point grid over [-8, 8]: max |error| 1.2e-6 (the same as the
// unfolded form's 1.4e-6; both are the rounding of x * ~1 near |x| = 8).
inline vf vgelu(vf x) {
  const vf limit = splat(5.656854249f);
  const vf t = vmax(-limit, vmin(limit, x));
  const vf t2 = t * t;
  vf p = splat(-1.505995060e-12f);
  p = p * t2 + splat(3.061199413e-10f);
  p = p * t2 + splat(-4.642651039e-08f);
  p = p * t2 + splat(-2.515756171e-06f);
  p = p * t2 + splat(-6.496460735e-05f);
  p = p * t2 + splat(-5.223043901e-04f);
  p = p * t2 + splat(-5.690807158e-03f);
  vf q = splat(-9.103794904e-07f);
  q = q * t2 + splat(-2.667175691e-05f);
  q = q * t2 + splat(-4.207067436e-04f);
  q = q * t2 + splat(-3.686664584e-03f);
  q = q * t2 + splat(-1.426473905e-02f);
  return x * (t * p * reciprocal(q) + splat(0.5f));
}

inline vf vrelu(vf x) { return vmax(x, vf{}); }

}  // namespace
}  // namespace tsserve::model::TSSERVE_FUSED_NAMESPACE
