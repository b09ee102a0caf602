#pragma once
// The fused CPU forward of the iTransformer (itransformer.h, Full attention): instance
// normalisation over time, the inverted embedding of each variable's window and of the
// calendar tokens, the encoder layers, the final LayerNorm, the projection of the N
// variable tokens and the de-normalisation, with no LibTorch operator in between and no
// LibTorch types here.
//
// Exactness (batch invariance): the samples' tokens are stacked along the GEMMs' rows for
// speed, but every output element is one fixed sequence of float operations (the sum over
// the input features in ascending order, then bias, residual and activation) whatever the
// row count, the element's position in a register tile or the other samples in the call;
// attention, norms and statistics run per sample. So a sample's forecast is bitwise the
// same alone or in any batch, on a given machine and instruction set (which, as for the
// PatchTST kernels, fused_forward.h, may change the last bits across machines).
//
// Thread safety: concurrent calls are safe; each thread reuses its own scratch buffers.

#include <cstdint>

#include "tsserve/model/fused_itransformer_weights.h"
#include "tsserve/model/fused_row_maps.h"

namespace tsserve::model {

// series: samples x variables x seq_len floats (row-major, each variable's window a row);
// calendar: samples x calendar_tokens x seq_len floats (itransformer.h's calendar rows),
// null when the weights have no calendar tokens; forecast: samples x variables x pred_len.
// variables >= 1.
//
// maps: null, or one FusedRowMaps per sample (fused_row_maps.h, with P = N' = variables +
// calendar tokens: the variables' tokens, then the calendar tokens): the softmax weights of
// the layers a sample asks for, per head [H][N'][N'] or averaged over heads [N'][N'] (sum
// over heads, divided by H), query token then key token, written in the forecast's own
// pass. The forecast is bitwise the same with or without maps. The last layer's calendar
// queries, which the forecast skips, are computed for a sample that asks for that layer's
// map only, apart from the forecast's arithmetic.
void fused_itransformer_forecast(const FusedITransformerWeights& weights, const float* series,
                                 const float* calendar, int64_t samples, int64_t variables,
                                 float* forecast, const FusedRowMaps* maps = nullptr);

// The same forward on a named copy of the kernels ("avx512", "avx2", "sse2"), for tests
// that check every copy this CPU can run. Returns false (and computes nothing) when the
// CPU lacks that instruction set; throws std::invalid_argument for an unknown name.
// fused_itransformer_forecast runs the copy fused_instruction_set() names
// (fused_forward.h: the CPU's widest, or TSSERVE_FUSED_ISA's).
bool fused_itransformer_forecast_with(const char* instruction_set,
                                      const FusedITransformerWeights& weights, const float* series,
                                      const float* calendar, int64_t samples, int64_t variables,
                                      float* forecast, const FusedRowMaps* maps = nullptr);

// Floats one layer's map of one sample takes: H * N' * N', or N' * N' averaged over heads.
inline int64_t fused_itransformer_layer_map_floats(const FusedITransformerWeights& w,
                                                   int64_t variables, bool average_heads) {
  const int64_t tokens = variables + w.calendar_tokens;
  return (average_heads ? 1 : w.n_heads) * tokens * tokens;
}

// Floats `maps.destination` must hold for one sample.
inline int64_t fused_itransformer_map_floats(const FusedITransformerWeights& w, int64_t variables,
                                             const FusedRowMaps& maps) {
  return maps.layer_count * fused_itransformer_layer_map_floats(w, variables, maps.average_heads);
}

}  // namespace tsserve::model
