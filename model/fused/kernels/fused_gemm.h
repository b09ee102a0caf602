#pragma once
// The small GEMM of the fused kernels: C = A * B (+ biases, + an activation), with B and C
// laid out as [k][lanes] rows and A read through strides, so one routine serves the
// projections (weights broadcast, activations as vectors) and the attention (keys or
// values broadcast). Register tiles of kTileRows x kTileVectors accumulators.

#include <cstddef>

#include "fused_vector.h"
#include "tsserve/model/fused_weights.h"

namespace tsserve::model::TSSERVE_FUSED_NAMESPACE {
namespace {

// Rows of a GEMM tile held in registers: MR x kTileVectors accumulators plus the B
// vectors must fit the register file (32 vector registers with AVX-512, 16 otherwise).
constexpr int kTileRows = kLanes == 16 ? 8 : 4;
constexpr int kTileVectors = 3;

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

}  // namespace
}  // namespace tsserve::model::TSSERVE_FUSED_NAMESPACE
