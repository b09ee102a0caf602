#pragma once
// The fused CPU forward of PatchTST (Full or ProbSparse attention): instance norm, patch
// embedding, encoder layers, final norm, flatten head and de-normalisation in one pass per
// series row, with no LibTorch operator in between. No LibTorch types here either.
//
// Exactness: every output element is one fixed sequence of float operations that
// depends only on its own row (rows are processed one at a time; the head runs over a
// block of rows whose elements do not mix), so a row's forecast is bitwise the same
// whatever else is in the batch, on a given machine. Across machines the instruction set
// chosen at run time (AVX-512, AVX2+FMA, or SSE2) may change the last bits, and so may
// the CPU's reciprocal estimate (erf's division uses one, refined by a Newton step).
//
// Attention maps (fused_row_maps.h) are a side output of the same pass: the softmax
// weights each head computes are copied out for the rows and layers that asked, and the
// forecast's own arithmetic never reads them, so a row's forecast is bitwise the same
// with or without maps. For ProbSparse attention the map is the one ProbAttention returns:
// the softmax rows of the u selected queries, 1 / P in every other (lazy) query's row.
//
// Thread safety: concurrent calls are safe; each thread reuses its own scratch buffers.

#include <cstdint>

#include "tsserve/model/fused_isa.h"
#include "tsserve/model/fused_row_maps.h"
#include "tsserve/model/fused_weights.h"

namespace tsserve::model {

// series: rows x seq_len floats (row-major); forecast: rows x pred_len floats.
// maps: null (no maps), or `rows` requests, one per row (FusedRowMaps{} for a row that
// wants none). Throws ModelError, before computing anything, for a request naming a
// layer the model lacks or asking for maps without a destination.
void fused_forecast_rows(const FusedWeights& weights, const float* series, int64_t rows,
                         float* forecast, const FusedRowMaps* maps = nullptr);

// The same forward on a named copy of the kernels ("avx512", "avx2", "sse2"), for tests
// that check every copy this CPU can run. Returns false (and computes nothing) when the
// CPU lacks that instruction set; throws std::invalid_argument for an unknown name.
bool fused_forecast_rows_with(const char* instruction_set, const FusedWeights& weights,
                              const float* series, int64_t rows, float* forecast,
                              const FusedRowMaps* maps = nullptr);

}  // namespace tsserve::model
