#pragma once
// Encode on the fused CPU kernels: already-embedded tokens through a model's encoder layers
// and final norm, for PatchTST (fused_weights.h) and the iTransformer
// (fused_itransformer_weights.h), with the kernels and instruction set their forecasts run
// on (fused_forward.h). No LibTorch types here.
//
// Exactness: each sequence is one fixed sequence of float operations whatever the others in
// the call (PatchTST's run one at a time; the iTransformer's are stacked as GEMM rows whose
// elements do not mix), so a sequence's output is bitwise the same alone or batched, on a
// given machine and instruction set.
//
// Thread safety: concurrent calls are safe; each thread reuses its own scratch buffers.

#include <cstdint>
#include <string>

#include "tsserve/model/fused_itransformer_weights.h"
#include "tsserve/model/fused_weights.h"

namespace tsserve::model {

// tokens: sequences x length x d_model floats (row-major); output the same shape.
// maps: null, or sequences x layers x n_heads x length x length floats: every layer's
// softmax weights per head, query token then key token, as the LibTorch encoder returns
// them. length >= 1. PatchTST's ProbSparse attention samples its keys for the model's own
// patch count, so it encodes exactly that many tokens (fused_encode_unsupported_reason).
void fused_patchtst_encode(const FusedWeights& weights, const float* tokens, int64_t sequences,
                           int64_t length, float* output, float* maps = nullptr);
void fused_itransformer_encode(const FusedITransformerWeights& weights, const float* tokens,
                               int64_t sequences, int64_t length, float* output,
                               float* maps = nullptr);

// "" when fused_patchtst_encode covers `length` tokens, otherwise why not (one sentence).
std::string fused_patchtst_encode_unsupported_reason(const FusedWeights& weights, int64_t length);

// The same on a named copy of the kernels ("avx512", "avx2", "sse2"), for tests that check
// every copy this CPU can run: false (nothing computed) when the CPU lacks it.
bool fused_patchtst_encode_with(const char* instruction_set, const FusedWeights& weights,
                                const float* tokens, int64_t sequences, int64_t length,
                                float* output, float* maps = nullptr);
bool fused_itransformer_encode_with(const char* instruction_set,
                                    const FusedITransformerWeights& weights, const float* tokens,
                                    int64_t sequences, int64_t length, float* output,
                                    float* maps = nullptr);

}  // namespace tsserve::model
