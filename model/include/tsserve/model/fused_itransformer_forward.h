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

namespace tsserve::model {

// series: samples x variables x seq_len floats (row-major, each variable's window a row);
// calendar: samples x calendar_tokens x seq_len floats (itransformer.h's calendar rows),
// null when the weights have no calendar tokens; forecast: samples x variables x pred_len.
// variables >= 1.
void fused_itransformer_forecast(const FusedITransformerWeights& weights, const float* series,
                                 const float* calendar, int64_t samples, int64_t variables,
                                 float* forecast);

// The same forward on a named copy of the kernels ("avx512", "avx2", "sse2"), for tests
// that check every copy this CPU can run. Returns false (and computes nothing) when the
// CPU lacks that instruction set; throws std::invalid_argument for an unknown name.
// fused_itransformer_forecast runs the copy fused_instruction_set() names
// (fused_forward.h: the CPU's widest, or TSSERVE_FUSED_ISA's).
bool fused_itransformer_forecast_with(const char* instruction_set,
                                      const FusedITransformerWeights& weights, const float* series,
                                      const float* calendar, int64_t samples, int64_t variables,
                                      float* forecast);

}  // namespace tsserve::model
