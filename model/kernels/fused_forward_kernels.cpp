// The fused PatchTST forward, written once with GCC vector extensions and compiled once
// per instruction set (model/CMakeLists.txt): TSSERVE_FUSED_LANES is the vector width in
// floats (16 AVX-512, 8 AVX2+FMA, 4 SSE2) and TSSERVE_FUSED_NAMESPACE names the copy.
// fused_dispatch.cpp picks the copy the CPU supports, once.
//
// A row's activations are kept transposed, x[feature][position], positions padded to a
// multiple of 16: vector lanes run over positions, so every projection, the attention,
// the norms and the activations are whole-vector operations, and every sum over features,
// keys or time is a scalar loop in a fixed order. All of a row's buffers (a few tens of
// KB for the bundled model) stay in L1/L2 while it goes through every layer.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <vector>

#include <immintrin.h>

#include "tsserve/model/fused_weights.h"

#ifndef TSSERVE_FUSED_LANES
#error "TSSERVE_FUSED_LANES must be defined by the build"
#endif

namespace tsserve::model::TSSERVE_FUSED_NAMESPACE {
namespace {

constexpr int kLanes = TSSERVE_FUSED_LANES;
// Rows of a GEMM tile held in registers: MR x kTileVectors accumulators plus the B
// vectors must fit the register file (32 vector registers with AVX-512, 16 otherwise).
constexpr int kTileRows = kLanes == 16 ? 8 : 4;
constexpr int kTileVectors = 3;

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

// 2^x for x <= 0 (a few ulp above 0 is fine too): the softmax's exp with log2(e) folded
// into the score scale, so no Cody-Waite reduction is needed: n = round(x) and
// r = x - n in [-0.5, 0.5] are exact, and 2^r is a degree-5 minimax polynomial (max
// relative error 2.4e-7 evaluated in float, measured on a 2e5-point grid; Cephes' exp
// took 11 operations here, this 6). Inputs below -126 are clamped there (2^-126, the
// smallest normal float).
inline vf vexp2_nonpositive(vf x) {
  x = x < splat(-126.0f) ? splat(-126.0f) : x;
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

// The instruction set's own vector operations that GCC's vector extensions lack.
// (The AVX-512 ones in their zero-masked form: the plain ones start from
// _mm512_undefined_ps, which GCC 12 reports as maybe-uninitialized.)
#if TSSERVE_FUSED_LANES == 16
inline vf vsqrt(vf x) { return (vf)_mm512_maskz_sqrt_ps(0xffff, (__m512)x); }
inline vf approximate_reciprocal(vf x) { return (vf)_mm512_maskz_rcp14_ps(0xffff, (__m512)x); }
#elif TSSERVE_FUSED_LANES == 8
inline vf vsqrt(vf x) { return (vf)_mm256_sqrt_ps((__m256)x); }
inline vf approximate_reciprocal(vf x) { return (vf)_mm256_rcp_ps((__m256)x); }
#elif TSSERVE_FUSED_LANES == 4
inline vf vsqrt(vf x) { return (vf)_mm_sqrt_ps((__m128)x); }
inline vf approximate_reciprocal(vf x) { return (vf)_mm_rcp_ps((__m128)x); }
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

// GELU, exact (erf) form: x * Phi(x) = x * (0.5 + 0.5 * erf(x / sqrt 2)), with erf(t) as
// the odd rational function t * P(t^2) / Q(t^2) on [-4, 4] that Eigen and XLA use for
// float (erf(4) = 1 - 1.5e-8). Here t = x / sqrt 2 is folded into the coefficients
// (P's k-th divided by 2^k and by 2 sqrt 2, Q's by 2^k), so x is clamped to
// [-4 sqrt 2, 4 sqrt 2] and nothing else is scaled. Measured in float32 against
// math.erf on a 4e5-point grid over [-8, 8]: max |error| 1.2e-6 (the same as the
// unfolded form's 1.4e-6; both are the rounding of x * ~1 near |x| = 8).
inline vf vgelu(vf x) {
  const vf limit = splat(5.656854249f);
  vf t = x > limit ? limit : x;
  t = t < -limit ? -limit : t;
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

inline vf vrelu(vf x) { return x > vf{} ? x : vf{}; }

// C[i][0:kTileVectors*kLanes) = (sum_k A(i, k) * B[k][...]) + bias, k ascending, for
// MR rows and NV vectors: each output element's sum runs in the same order whatever
// the tile shape, so the tiling never changes a result.
struct GemmArgs {
  int rows, cols, depth;  // M, N (a multiple of kFusedPad), K
  const float* a;         // A(i, k) = a[i * a_row + k * a_col]
  ptrdiff_t a_row, a_col;
  const float* b;  // B[k][j] = b[k * ldb + j]
  ptrdiff_t ldb;
  const float* row_bias;  // added to C[i][*] (may be null), and/or
  const float* col_bias;  // added to C[*][j] (may be null)
  float* c;               // C[i][j] = c[i * ldc + j]
  ptrdiff_t ldc;
  // Applied to C after the biases, while it is still in registers (the feed-forward's
  // first projection), or null: one pass over its output instead of two.
  const FusedActivation* activation = nullptr;
};

template <int MR, int NV>
void gemm_tile(const GemmArgs& args, int i0, int j0) {
  const GemmArgs g = args;  // a local copy: the stores below cannot alias its fields
  const float* a = g.a + i0 * g.a_row;
  const float* b = g.b + j0;
  // The accumulators start from the k = 0 products, not from zero: a zero-initialised
  // array made GCC clear it on the stack with `rep stos` before every tile (29 % of the
  // tile's samples in `perf annotate`), and 0 + x is x, so no result changes. depth >= 1.
  vf acc[MR][NV];
  {
    vf bv[NV];
    for (int j = 0; j < NV; ++j) bv[j] = load(b + j * kLanes);
    for (int i = 0; i < MR; ++i) {
      const vf av = splat(a[i * g.a_row]);
      for (int j = 0; j < NV; ++j) acc[i][j] = av * bv[j];
    }
  }
  for (int k = 1; k < g.depth; ++k) {
    vf bv[NV];
    for (int j = 0; j < NV; ++j) bv[j] = load(b + k * g.ldb + j * kLanes);
    for (int i = 0; i < MR; ++i) {
      const vf av = splat(a[i * g.a_row + k * g.a_col]);
      for (int j = 0; j < NV; ++j) acc[i][j] += av * bv[j];
    }
  }
  // Biases in whole passes, outside the store loop: a branch per element made GCC spill
  // every accumulator to the stack and reload it.
  if (g.row_bias) {
    for (int i = 0; i < MR; ++i) {
      const vf bias = splat(g.row_bias[i0 + i]);
      for (int j = 0; j < NV; ++j) acc[i][j] += bias;
    }
  }
  if (g.col_bias) {
    for (int j = 0; j < NV; ++j) {
      const vf bias = load(g.col_bias + j0 + j * kLanes);
      for (int i = 0; i < MR; ++i) acc[i][j] += bias;
    }
  }
  if (g.activation) {
    const bool gelu = *g.activation == FusedActivation::kGelu;
    for (int i = 0; i < MR; ++i) {
      for (int j = 0; j < NV; ++j) acc[i][j] = gelu ? vgelu(acc[i][j]) : vrelu(acc[i][j]);
    }
  }
  for (int i = 0; i < MR; ++i) {
    for (int j = 0; j < NV; ++j) store(g.c + (i0 + i) * g.ldc + j0 + j * kLanes, acc[i][j]);
  }
}

template <int NV>
void gemm_column_block(const GemmArgs& g, int j0) {
  int i0 = 0;
  for (; i0 + kTileRows <= g.rows; i0 += kTileRows) gemm_tile<kTileRows, NV>(g, i0, j0);
  switch (g.rows - i0) {
    case 7:
      if constexpr (kTileRows > 7) gemm_tile<7, NV>(g, i0, j0);
      break;
    case 6:
      if constexpr (kTileRows > 6) gemm_tile<6, NV>(g, i0, j0);
      break;
    case 5:
      if constexpr (kTileRows > 5) gemm_tile<5, NV>(g, i0, j0);
      break;
    case 4:
      if constexpr (kTileRows > 4) gemm_tile<4, NV>(g, i0, j0);
      break;
    case 3:
      gemm_tile<3, NV>(g, i0, j0);
      break;
    case 2:
      gemm_tile<2, NV>(g, i0, j0);
      break;
    case 1:
      gemm_tile<1, NV>(g, i0, j0);
      break;
    default:
      break;
  }
}

void gemm(const GemmArgs& g) {
  const int vectors = g.cols / kLanes;
  for (int v0 = 0; v0 < vectors; v0 += kTileVectors) {
    const int j0 = v0 * kLanes;
    switch (std::min(kTileVectors, vectors - v0)) {
      case 3:
        gemm_column_block<3>(g, j0);
        break;
      case 2:
        gemm_column_block<2>(g, j0);
        break;
      default:
        gemm_column_block<1>(g, j0);
        break;
    }
  }
}

// x[feature][position] (padded width `width`) = LayerNorm over features of (x + y), per
// position; y may be null. Mean and variance as PyTorch: biased, eps inside the root.
TSSERVE_STAGE void add_layer_norm(float* x, const float* y, int features, int width,
                                  const float* weight, const float* bias) {
  const vf inv_n = splat(1.0f / static_cast<float>(features));
  for (int j = 0; j < width; j += kLanes) {
    if (y) {
      for (int d = 0; d < features; ++d) {
        store(x + d * width + j, load(x + d * width + j) + load(y + d * width + j));
      }
    }
    vf sum{};
    for (int d = 0; d < features; ++d) sum += load(x + d * width + j);
    const vf mean = sum * inv_n;
    vf squares{};
    for (int d = 0; d < features; ++d) {
      const vf c = load(x + d * width + j) - mean;
      squares += c * c;
    }
    // Correctly rounded sqrt and division, as the scalar loop this replaced.
    const vf rstd = splat(1.0f) / vsqrt(squares * inv_n + splat(1e-5f));
    for (int d = 0; d < features; ++d) {
      const vf c = load(x + d * width + j) - mean;
      store(x + d * width + j, c * rstd * splat(weight[d]) + splat(bias[d]));
    }
  }
}

// Per-thread buffers, grown to the largest model seen and reused across calls.
struct Scratch {
  std::vector<float> series;   // normalised row + replication padding
  std::vector<float> patches;  // [patch_len][Pp]
  std::vector<float> x, y;     // [D][Pp]
  std::vector<float> qkv;      // [3D][Pp]
  std::vector<float> scores;   // [P][Pp]: scores[s][l], key s, query l
  std::vector<float> sums;     // [Pp]
  std::vector<float> context;  // [D][Pp]
  std::vector<float> hidden;   // [D_ff][Pp]
  std::vector<float> flat;     // [block rows][D*P]
  std::vector<float> head;     // [block rows][padded_pred]
  std::vector<double> stats;   // [block rows][2]: mean, std

  void fit(const FusedWeights& w, int block_rows) {
    const size_t pp = static_cast<size_t>(w.padded_patches);
    const size_t d = static_cast<size_t>(w.d_model);
    grow(series, static_cast<size_t>(w.seq_len + w.stride));
    grow(patches, static_cast<size_t>(w.patch_len) * pp);
    grow(x, d * pp);
    grow(y, d * pp);
    grow(qkv, 3 * d * pp);
    grow(scores, static_cast<size_t>(w.patches) * pp);
    grow(sums, pp);
    grow(context, d * pp);
    grow(hidden, static_cast<size_t>(w.d_ff) * pp);
    grow(flat, block_rows * d * static_cast<size_t>(w.patches));
    grow(head, block_rows * static_cast<size_t>(w.padded_pred));
    if (stats.size() < 2u * block_rows) stats.resize(2u * block_rows);
  }
  static void grow(std::vector<float>& v, size_t n) {
    if (v.size() < n) v.resize(n, 0.0f);
  }
};

// scores[s][l] <- exp(scale * scores[s][l] - max_s), sums[l] <- sum over s: softmax over
// keys per query column, left unnormalised (the context is divided by the sum instead).
// exp(scale * (z - top)) = 2^(z * c - top * c) with c = scale * log2(e), one FMA.
TSSERVE_STAGE void softmax_columns(float* scores, float* sums, int patches, int width,
                                   int e_width) {
  const vf c = splat(static_cast<float>(1.4426950408889634 /
                                        std::sqrt(static_cast<double>(e_width))));
  for (int j = 0; j < width; j += kLanes) {
    vf top = load(scores + j);
    for (int key = 1; key < patches; ++key) {
      const vf z = load(scores + key * width + j);
      top = z > top ? z : top;
    }
    const vf top_c = top * c;
    vf sum{};
    for (int key = 0; key < patches; ++key) {
      const vf e = vexp2_nonpositive(load(scores + key * width + j) * c - top_c);
      store(scores + key * width + j, e);
      sum += e;
    }
    store(sums + j, sum);
  }
}

// One head's attention, transposed: scores[s][l] = K_h[s] . Q_h[l], softmax over s per
// query column, context[e][l] = sum_s V_h[e][s] * weight[s][l].
TSSERVE_STAGE void attend_head(const FusedWeights& w, Scratch& s, int head) {
  const int width = static_cast<int>(w.padded_patches);
  const int patches = static_cast<int>(w.patches);
  const int d_model = static_cast<int>(w.d_model);
  const int e_width = static_cast<int>(w.d_model / w.n_heads);
  const float* q = s.qkv.data() + head * e_width * width;
  const float* k = s.qkv.data() + (d_model + head * e_width) * width;
  const float* v = s.qkv.data() + (2 * d_model + head * e_width) * width;
  float* scores = s.scores.data();

  gemm({patches, width, e_width, k, 1, width, q, width, nullptr, nullptr, scores, width});
  softmax_columns(scores, s.sums.data(), patches, width, e_width);

  float* context = s.context.data() + head * e_width * width;
  gemm({e_width, width, patches, v, width, 1, scores, width, nullptr, nullptr, context, width});
  for (int e = 0; e < e_width; ++e) {
    for (int j = 0; j < width; j += kLanes) {
      store(context + e * width + j, load(context + e * width + j) / load(s.sums.data() + j));
    }
  }
}

void encoder_layer(const FusedWeights& w, const FusedLayerWeights& layer, Scratch& s) {
  const int width = static_cast<int>(w.padded_patches);
  const int d_model = static_cast<int>(w.d_model);
  const int d_ff = static_cast<int>(w.d_ff);

  gemm({3 * d_model, width, d_model, layer.qkv_weight.data(), d_model, 1, s.x.data(), width,
        layer.qkv_bias.data(), nullptr, s.qkv.data(), width});
  for (int head = 0; head < w.n_heads; ++head) attend_head(w, s, head);
  gemm({d_model, width, d_model, layer.out_weight.data(), d_model, 1, s.context.data(), width,
        layer.out_bias.data(), nullptr, s.y.data(), width});
  add_layer_norm(s.x.data(), s.y.data(), d_model, width, layer.norm1_weight.data(),
                 layer.norm1_bias.data());

  gemm({d_ff, width, d_model, layer.ff1_weight.data(), d_model, 1, s.x.data(), width,
        layer.ff1_bias.data(), nullptr, s.hidden.data(), width, &w.activation});
  gemm({d_model, width, d_ff, layer.ff2_weight.data(), d_ff, 1, s.hidden.data(), width,
        layer.ff2_bias.data(), nullptr, s.y.data(), width});
  add_layer_norm(s.x.data(), s.y.data(), d_model, width, layer.norm2_weight.data(),
                 layer.norm2_bias.data());
}

// Instance norm, patch embedding, encoder and final norm of one row; writes the
// d-major flattened encoder output (index d*P + p) to `flat` and the row's mean and std.
void encode_row(const FusedWeights& w, const float* row, Scratch& s, float* flat, double* stats) {
  const int seq_len = static_cast<int>(w.seq_len);
  const int width = static_cast<int>(w.padded_patches);
  const int patches = static_cast<int>(w.patches);
  const int d_model = static_cast<int>(w.d_model);
  const int patch_len = static_cast<int>(w.patch_len);
  const int stride = static_cast<int>(w.stride);

  // Float statistics in PyTorch's order of operations would differ in the last bits
  // anyway; double sums keep them within float rounding of the exact values.
  double sum = 0.0;
  for (int t = 0; t < seq_len; ++t) sum += row[t];
  const double mean = sum / seq_len;
  double squares = 0.0;
  for (int t = 0; t < seq_len; ++t) squares += (row[t] - mean) * (row[t] - mean);
  const float mean_f = static_cast<float>(mean);
  const float stdev_f = static_cast<float>(std::sqrt(squares / seq_len + 1e-5));
  stats[0] = mean_f;
  stats[1] = stdev_f;

  float* series = s.series.data();
  for (int t = 0; t < seq_len; ++t) series[t] = (row[t] - mean_f) / stdev_f;
  for (int t = 0; t < stride; ++t) series[seq_len + t] = series[seq_len - 1];
  float* patches_t = s.patches.data();  // [patch_len][Pp], columns past P stay zero
  for (int p = 0; p < patches; ++p) {
    for (int k = 0; k < patch_len; ++k) patches_t[k * width + p] = series[p * stride + k];
  }

  gemm({d_model, width, patch_len, w.embed_weight.data(), patch_len, 1, patches_t, width, nullptr,
        nullptr, s.x.data(), width});
  for (int i = 0; i < d_model * width; i += kLanes) {
    store(s.x.data() + i, load(s.x.data() + i) + load(w.position_transposed.data() + i));
  }

  for (const FusedLayerWeights& layer : w.layers) encoder_layer(w, layer, s);

  if (w.final_norm == FusedFinalNorm::kLayer) {
    add_layer_norm(s.x.data(), nullptr, d_model, width, w.final_weight.data(), w.final_bias.data());
  }
  for (int d = 0; d < d_model; ++d) {
    const float* x = s.x.data() + d * width;
    float* out = flat + d * patches;
    if (w.final_norm == FusedFinalNorm::kBatch) {
      for (int p = 0; p < patches; ++p) out[p] = x[p] * w.final_weight[d] + w.final_bias[d];
    } else {
      std::memcpy(out, x, sizeof(float) * patches);
    }
  }
}

// The head reads a block of rows at once so its weight ([D*P][F], 258 KB for the bundled
// model) is streamed once per block, not once per row.
constexpr int kBlockRows = 8;

}  // namespace

void forecast_rows(const FusedWeights& w, const float* series, int64_t rows, float* forecast) {
  thread_local Scratch scratch;
  scratch.fit(w, kBlockRows);
  const int flat_width = static_cast<int>(w.d_model * w.patches);
  const int padded_pred = static_cast<int>(w.padded_pred);
  for (int64_t r0 = 0; r0 < rows; r0 += kBlockRows) {
    const int block = static_cast<int>(std::min<int64_t>(kBlockRows, rows - r0));
    for (int r = 0; r < block; ++r) {
      encode_row(w, series + (r0 + r) * w.seq_len, scratch, scratch.flat.data() + r * flat_width,
                 scratch.stats.data() + 2 * r);
    }
    gemm({block, padded_pred, flat_width, scratch.flat.data(), flat_width, 1,
          w.head_weight_transposed.data(), padded_pred, nullptr, w.head_bias.data(),
          scratch.head.data(), padded_pred});
    for (int r = 0; r < block; ++r) {
      const float mean = static_cast<float>(scratch.stats[2 * r]);
      const float stdev = static_cast<float>(scratch.stats[2 * r + 1]);
      float* out = forecast + (r0 + r) * w.pred_len;
      const float* scaled = scratch.head.data() + r * padded_pred;
      for (int f = 0; f < w.pred_len; ++f) out[f] = scaled[f] * stdev + mean;
    }
  }
}

}  // namespace tsserve::model::TSSERVE_FUSED_NAMESPACE
