#pragma once
// The register-tiled GEMM of the fused iTransformer kernels: C = A * B (+ bias,
// + residual or an activation) with A row-major (one row per token, read through a row
// stride) and B in panels of kFusedPad columns (fused_packed_linear.h for the weights;
// the attention's keys and values are read in place through the same strides).
//
// Batch invariance. Every element C(i, j) is computed as
//   acc = A(i,0) B(0,j); acc += A(i,k) B(k,j) for k = 1 .. K-1 (one FMA each, in order);
//   acc += bias(j); acc += R(i,j) or acc = act(acc)
// in every tile shape (full tiles and the edge tiles of fewer rows or panels alike), so
// it depends on A's row i and on B only: not on how many rows the call has, where row i
// sits in a tile, or what the other rows hold. The stacked samples of a batch therefore
// cannot change one another's bits.

#include <algorithm>
#include <cstddef>

#include "fused_vector.h"
#include "tsserve/model/fused_packed_linear.h"
#include "tsserve/model/fused_weights.h"

namespace tsserve::model::TSSERVE_FUSED_NAMESPACE {
namespace {

// The register tile: kPanelTileRows rows x kPanelTilePanels panels. Its accumulators,
// the panel vectors of one k and one broadcast A value must fit the register file
// (32 vector registers with AVX-512, 16 otherwise): AVX-512 12 x 2 vectors (27 live),
// AVX2 6 x 2 vectors (15 live), SSE2 2 x 4 vectors (13 live).
#if TSSERVE_FUSED_LANES == 16
constexpr int kPanelTileRows = 12;
constexpr int kPanelTilePanels = 2;
#elif TSSERVE_FUSED_LANES == 8
constexpr int kPanelTileRows = 6;
constexpr int kPanelTilePanels = 1;
#else
constexpr int kPanelTileRows = 2;
constexpr int kPanelTilePanels = 1;
#endif
constexpr int kPanelVectors = static_cast<int>(kFusedPad) / kLanes;  // vectors per panel row

struct PanelGemm {
  int rows, panels, depth;  // M, N / kFusedPad, K (>= 1)
  const float* a;           // A(i, k) = a[i * lda + k]
  ptrdiff_t lda;
  const float* b;  // B(k, p * kFusedPad + c) = b[p * panel_stride + k * ldb + c]
  ptrdiff_t panel_stride, ldb;
  const float* bias;      // [panels * kFusedPad], added to every row; or null
  const float* residual;  // R(i, j) = residual[i * ldr + j], added after the bias; or null
  ptrdiff_t ldr;
  // Applied after the bias while C is still in registers (the feed-forward's first
  // projection); or null. Not together with a residual.
  const FusedActivation* activation;
  float* c;  // C(i, j) = c[i * ldc + j], every column of the panels written
  ptrdiff_t ldc;
  // B is packed (ldb == kFusedPad: a panel row is one cache line), so the next panels
  // can be prefetched while the current ones are in use.
  bool packed = false;
};

// Prefetched into L2, not L1: the current panels and the rows of A fill L1.
inline void prefetch_to_l2(const float* p) { __builtin_prefetch(p, 0, 2); }

// Prefetches `lines` lines per panel from `next` on (one per panel and k, from k = 0)
// while the tile runs.
template <int MR, int NP>
inline void panel_tile(const PanelGemm& args, int i0, int p0, const float* next = nullptr,
                       int lines = 0) {
  constexpr int kVectors = NP * kPanelVectors;
  const PanelGemm g = args;  // a local copy: the stores below cannot alias its fields
  const float* a = g.a + i0 * g.lda;
  const float* b = g.b + p0 * g.panel_stride;
  // The accumulators start from the k = 0 products (0 + x is x: nothing changes, and GCC
  // does not clear a zeroed array on the stack first; fused_gemm.h measured that).
  vf acc[MR][kVectors];
  if (lines > 0) {
    for (int p = 0; p < NP; ++p) prefetch_to_l2(next + p * g.panel_stride);
  }
  {
    vf bv[kVectors];
    for (int p = 0; p < NP; ++p) {
      for (int v = 0; v < kPanelVectors; ++v) {
        bv[p * kPanelVectors + v] = load(b + p * g.panel_stride + v * kLanes);
      }
    }
    for (int i = 0; i < MR; ++i) {
      const vf av = splat(a[i * g.lda]);
      for (int j = 0; j < kVectors; ++j) acc[i][j] = av * bv[j];
    }
  }
  for (int k = 1; k < g.depth; ++k) {
    const float* bk = b + k * g.ldb;
    if (k < lines) {
      for (int p = 0; p < NP; ++p) prefetch_to_l2(next + p * g.panel_stride + k * g.ldb);
    }
    vf bv[kVectors];
    for (int p = 0; p < NP; ++p) {
      for (int v = 0; v < kPanelVectors; ++v) {
        bv[p * kPanelVectors + v] = load(bk + p * g.panel_stride + v * kLanes);
      }
    }
    for (int i = 0; i < MR; ++i) {
      const vf av = splat(a[i * g.lda + k]);
      for (int j = 0; j < kVectors; ++j) acc[i][j] += av * bv[j];
    }
  }
  // Each epilogue in whole passes, outside the store loop (a branch per element made GCC
  // spill the accumulators: fused_gemm.h).
  const int j0 = p0 * static_cast<int>(kFusedPad);
  if (g.bias) {
    for (int j = 0; j < kVectors; ++j) {
      const vf bias = load(g.bias + j0 + j * kLanes);
      for (int i = 0; i < MR; ++i) acc[i][j] += bias;
    }
  }
  if (g.residual) {
    for (int i = 0; i < MR; ++i) {
      const float* r = g.residual + (i0 + i) * g.ldr + j0;
      for (int j = 0; j < kVectors; ++j) acc[i][j] += load(r + j * kLanes);
    }
  } else if (g.activation) {
    const bool gelu = *g.activation == FusedActivation::kGelu;
    for (int i = 0; i < MR; ++i) {
      for (int j = 0; j < kVectors; ++j) acc[i][j] = gelu ? vgelu(acc[i][j]) : vrelu(acc[i][j]);
    }
  }
  for (int i = 0; i < MR; ++i) {
    for (int j = 0; j < kVectors; ++j) store(g.c + (i0 + i) * g.ldc + j0 + j * kLanes, acc[i][j]);
  }
}

// The last rows < kPanelTileRows of a column block, in one tile of exactly that many.
template <int NP, int MR = kPanelTileRows - 1>
inline void panel_edge_rows(const PanelGemm& g, int i0, int p0, int rows) {
  if constexpr (MR >= 1) {
    if (rows == MR) {
      panel_tile<MR, NP>(g, i0, p0);
    } else {
      panel_edge_rows<NP, MR - 1>(g, i0, p0, rows);
    }
  }
}

// Every row through the panels p0 .. p0 + NP - 1: the panels (K x NP x 64 bytes: 16 KB
// for K = 256 on AVX2) stay in L1 while the rows stream past them.
template <int NP>
void panel_column_block(const PanelGemm& g, int p0) {
  // The next block's panels are prefetched into L2 while this block runs (the weights
  // stream from L3: a layer's are ~1 MB for the bundled model), a share of the lines in
  // each full tile, one per k: spread out, as a burst overflows the core's miss buffers.
  const bool prefetch = g.packed && p0 + NP < g.panels;
  const float* next = prefetch ? g.b + (p0 + NP) * g.panel_stride : nullptr;
  const int tiles = g.rows / kPanelTileRows;
  const int share = tiles > 0 ? (g.depth + tiles - 1) / tiles : 0;
  int i0 = 0;
  for (int t = 0; t < tiles; ++t, i0 += kPanelTileRows) {
    const int first = t * share;
    const int lines = prefetch ? std::max(0, std::min(share, g.depth - first)) : 0;
    panel_tile<kPanelTileRows, NP>(g, i0, p0, lines > 0 ? next + first * g.ldb : nullptr, lines);
  }
  if (i0 < g.rows) panel_edge_rows<NP>(g, i0, p0, g.rows - i0);
}

template <int NP = kPanelTilePanels - 1>
inline void panel_edge_columns(const PanelGemm& g, int p0, int panels) {
  if constexpr (NP >= 1) {
    if (panels == NP) {
      panel_column_block<NP>(g, p0);
    } else {
      panel_edge_columns<NP - 1>(g, p0, panels);
    }
  }
}

TSSERVE_STAGE void panel_gemm(const PanelGemm& g) {
  int p0 = 0;
  for (; p0 + kPanelTilePanels <= g.panels; p0 += kPanelTilePanels) {
    panel_column_block<kPanelTilePanels>(g, p0);
  }
  if (p0 < g.panels) panel_edge_columns(g, p0, g.panels - p0);
}

// y = x W^T + b (+ residual, or an activation) over `rows` rows of x, with a Linear
// packed for these panels (fused_packed_linear.h).
inline void linear(const FusedPackedLinear& l, const float* x, ptrdiff_t ldx, int rows, float* y,
                   ptrdiff_t ldy, const float* residual = nullptr,
                   const FusedActivation* activation = nullptr) {
  panel_gemm({rows, static_cast<int>(l.panel_count()), static_cast<int>(l.in), x, ldx,
              l.panels.data(), l.in * kFusedPad, kFusedPad, l.bias.data(), residual, ldy,
              activation, y, ldy, true});
}

}  // namespace
}  // namespace tsserve::model::TSSERVE_FUSED_NAMESPACE
