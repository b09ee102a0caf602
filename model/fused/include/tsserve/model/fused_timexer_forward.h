#pragma once
// The fused CPU forward of TimeXer (timexer.h): the normalisation over time (use_norm),
// the endogenous patches and global tokens, the covariate tokens, every encoder layer
// (self-attention over each endogenous variable's tokens, the global token's
// cross-attention over the sample's covariate tokens, the feed-forward, three LayerNorms),
// the final LayerNorm, the flattening head and the de-normalisation, with no LibTorch
// operator in between and no LibTorch types here.
//
// Exactness (batch invariance) as the iTransformer's (fused_itransformer_forward.h): the
// samples' tokens are stacked along the GEMMs' rows, but every output element is one fixed
// sequence of float operations whatever the row count or the other samples in the call;
// attention, norms and statistics run per sample. A sample's forecast is bitwise the same
// alone or in any batch, on a given machine and instruction set.
//
// Thread safety: concurrent calls are safe; each thread reuses its own scratch buffers.

#include <cstdint>

#include "tsserve/model/fused_timexer_weights.h"

namespace tsserve::model {

// One sample's request for attention maps, written in the forecast's own pass (the
// forecast is bitwise the same with or without them). A view: the caller owns the buffers.
struct FusedTimeXerMaps {
  const int32_t* layers = nullptr;  // encoder layer indices in [0, e_layers); repeats allowed
  int32_t layer_count = 0;
  bool average_heads = false;  // the mean over heads (sum, then divided by H)
  // Per slot of `layers`, one after another: the self-attention over each endogenous
  // variable's L tokens, [K][H][L][L] ([K][L][L] averaged), query token then key token ...
  float* self_maps = nullptr;
  // ... and the global tokens' cross-attention over the V covariate tokens, [H][K][V]
  // ([K][V] averaged), TSLib's [B, H, K, V] layout.
  float* cross_maps = nullptr;

  bool wanted() const { return layer_count > 0; }
};

// Floats one slot takes in self_maps and in cross_maps.
inline int64_t fused_timexer_self_map_floats(const FusedTimeXerWeights& w, bool average_heads) {
  return w.endogenous() * (average_heads ? 1 : w.n_heads) * w.tokens() * w.tokens();
}
inline int64_t fused_timexer_cross_map_floats(const FusedTimeXerWeights& w, bool average_heads) {
  return (average_heads ? 1 : w.n_heads) * w.endogenous() * w.covariates();
}

// series: samples x variables x seq_len floats (each variable's window a row, the target
// last); calendar: samples x calendar_tokens x seq_len (the time features of the input
// steps), null without calendar tokens; forecast: samples x K x pred_len. maps: null, or
// one per sample.
void fused_timexer_forecast(const FusedTimeXerWeights& weights, const float* series,
                            const float* calendar, int64_t samples, float* forecast,
                            const FusedTimeXerMaps* maps = nullptr);

// The same forward on a named copy of the kernels ("avx512", "avx2", "sse2"), for tests
// that check every copy this CPU can run. Returns false (and computes nothing) when the
// CPU lacks that instruction set; throws std::invalid_argument for an unknown name.
bool fused_timexer_forecast_with(const char* instruction_set, const FusedTimeXerWeights& weights,
                                 const float* series, const float* calendar, int64_t samples,
                                 float* forecast, const FusedTimeXerMaps* maps = nullptr);

}  // namespace tsserve::model
